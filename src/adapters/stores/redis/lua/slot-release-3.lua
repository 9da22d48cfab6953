--[[
  Frees one holder's slot or queue place and hands free slots to the queue, oldest first, in
  one atomic step (a no-op for the holder when it has neither, e.g. a second release). Slots
  whose lease ended are reclaimed on the way, so a dead worker's slots come back here too.

  KEYS[1]  slot holders, sorted set: holder id -> lease end (epoch ms) (keys(prefix).slots)
  KEYS[2]  queue, sorted set: holder id -> arrival number (keys(prefix).slotQueue)
  KEYS[3]  meta hash: 'seq' arrival counter, 'concurrent' limit (keys(prefix).slotMeta)
  ARGV[1]  holder id
  ARGV[2]  lease length for promoted holders, ms
  ARGV[3]  now, epoch ms
  ARGV[4]  idle expiry of the three keys, ms (refreshed on every write)

  Returns: the ids promoted into slots (the caller starts them), oldest first.
]]
--- @include "reclaim-and-promote"

local id = ARGV[1]
local now = tonumber(ARGV[3])
local leaseEnd = now + tonumber(ARGV[2])

redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)

-- The limit of the account's latest acquire; without one nothing was ever queued.
local concurrent = tonumber(redis.call('HGET', KEYS[3], 'concurrent') or '0')
local promoted = {}
local running = reclaimAndPromote(KEYS[1], KEYS[2], concurrent, now, leaseEnd, promoted)

if running == 0 and redis.call('ZCARD', KEYS[2]) == 0 then
  -- Nothing held or waiting: drop the keys rather than keep an idle account's state around.
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
else
  local ttl = tonumber(ARGV[4])
  for i = 1, 3 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return promoted
