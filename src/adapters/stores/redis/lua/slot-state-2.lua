--[[
  Where one holder stands, read in one step (so a holder moving from the queue to a slot is
  never seen in neither).

  KEYS[1]  slot holders, sorted set: holder id -> lease end (epoch ms) (keys(prefix).slots)
  KEYS[2]  queue, sorted set: holder id -> arrival number (keys(prefix).slotQueue)
  ARGV[1]  holder id
  ARGV[2]  now, epoch ms

  Returns: 1 in a slot with a live lease, 2 in a slot whose lease ended, 3 queued, 0 neither.
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score then
  if tonumber(score) > tonumber(ARGV[2]) then return 1 end
  return 2
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 3 end
return 0
