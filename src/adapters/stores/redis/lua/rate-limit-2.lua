--[[
  Checks and counts one request against two fixed windows (per minute and per day) at once:
  the request is admitted only if both counters are below their limits, and then both are
  incremented; a refused request changes nothing. Running as one script makes the check and
  the increments atomic, so concurrent requests from any number of workers never over-admit.

  KEYS[1]  per-minute counter (keys(prefix).rateMinute(accountId, minuteIndex))
  KEYS[2]  per-day counter (keys(prefix).rateDay(accountId, dayIndex))
  ARGV[1]  per-minute limit
  ARGV[2]  per-day limit
  ARGV[3]  per-minute counter time to live, in milliseconds (set when the counter is created)
  ARGV[4]  per-day counter time to live, in milliseconds (set when the counter is created)

  Returns: { admitted (1 or 0), minute count, day count }, counts after the increment when
  admitted, as read otherwise.
]]
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
if minute >= tonumber(ARGV[1]) or day >= tonumber(ARGV[2]) then
  return { 0, minute, day }
end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
day = redis.call('INCR', KEYS[2])
if day == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return { 1, minute, day }
