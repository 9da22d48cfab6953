--[[
  Extends the leases of slot holders owned by the caller (its heartbeat). Only a live lease is
  extended: a lease that already ended may have been judged dead by another worker, which then
  owns the recovery, so it is reported rather than revived.

  KEYS[1]  slot holders, sorted set: holder id -> lease end (epoch ms) (keys(prefix).slots)
  ARGV[1]  lease length, ms
  ARGV[2]  now, epoch ms
  ARGV[3..] holder ids

  Returns: the holder ids that no longer hold a live slot.
]]
local now = tonumber(ARGV[2])
local leaseEnd = now + tonumber(ARGV[1])
local lost = {}
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) > now then
    redis.call('ZADD', KEYS[1], 'XX', leaseEnd, ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
