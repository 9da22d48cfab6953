--[[
  Shared by slot-acquire-3.lua and slot-release-3.lua (inlined where the script says
  `--- @include "reclaim-and-promote"`, see scripts.ts): reclaims slots whose lease ended and
  promotes queued holders into the free slots, oldest first, so a slot freed by a dead worker
  goes to whoever waited longest.

  slotsKey    slot holders, sorted set: holder id -> lease end (epoch ms)
  queueKey    queue, sorted set: holder id -> arrival number
  concurrent  the account's concurrent limit
  now         epoch ms; a lease ending exactly now counts as ended, as in the in-process adapter
  leaseEnd    lease end given to the promoted holders, epoch ms
  promoted    table the promoted ids are appended to, oldest first

  Returns: how many slots are held afterwards.
]]
local function reclaimAndPromote(slotsKey, queueKey, concurrent, now, leaseEnd, promoted)
  redis.call('ZREMRANGEBYSCORE', slotsKey, '-inf', now)
  local running = redis.call('ZCARD', slotsKey)
  while running < concurrent do
    local head = redis.call('ZRANGE', queueKey, 0, 0)
    if #head == 0 then break end
    redis.call('ZREM', queueKey, head[1])
    redis.call('ZADD', slotsKey, leaseEnd, head[1])
    running = running + 1
    table.insert(promoted, head[1])
  end
  return running
end
