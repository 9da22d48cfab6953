--[[
  Takes a concurrency slot or a queue place for one holder (an execution) of one account, in
  one atomic step, so racing submits on any worker or node never share the last slot or the
  last queue place. First reclaims slots whose lease ended and promotes queued holders into the
  free slots (oldest first), so a slot freed by a dead worker goes to whoever waited longest.

  KEYS[1]  slot holders, sorted set: holder id -> lease end (epoch ms) (keys(prefix).slots)
  KEYS[2]  queue, sorted set: holder id -> arrival number (keys(prefix).slotQueue)
  KEYS[3]  meta hash: 'seq' arrival counter, 'concurrent' limit (keys(prefix).slotMeta)
  ARGV[1]  holder id
  ARGV[2]  concurrent limit
  ARGV[3]  queue size
  ARGV[4]  lease length, ms
  ARGV[5]  now, epoch ms
  ARGV[6]  idle expiry of the three keys, ms (refreshed on every write)

  Returns: { status, position, promoted... } with status 1 started, 2 queued (position from 1),
  3 full (nothing changed for the holder); then the ids promoted into slots by the reclaim.
]]
--- @include "reclaim-and-promote"

local id = ARGV[1]
local concurrent = tonumber(ARGV[2])
local queueSize = tonumber(ARGV[3])
local leaseEnd = tonumber(ARGV[5]) + tonumber(ARGV[4])
local now = tonumber(ARGV[5])

redis.call('HSET', KEYS[3], 'concurrent', concurrent)

-- The promoted ids follow status and position in the reply.
local result = { 0, 0 }
local running = reclaimAndPromote(KEYS[1], KEYS[2], concurrent, now, leaseEnd, result)

if redis.call('ZSCORE', KEYS[1], id) then
  redis.call('ZADD', KEYS[1], leaseEnd, id)
  result[1] = 1
else
  local rank = redis.call('ZRANK', KEYS[2], id)
  if rank then
    result[1] = 2
    result[2] = rank + 1
  else
    local queued = redis.call('ZCARD', KEYS[2])
    if running < concurrent and queued == 0 then
      redis.call('ZADD', KEYS[1], leaseEnd, id)
      result[1] = 1
    elseif queued < queueSize then
      local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
      redis.call('ZADD', KEYS[2], seq, id)
      result[1] = 2
      result[2] = queued + 1
    else
      result[1] = 3
    end
  end
end

local ttl = tonumber(ARGV[6])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return result
