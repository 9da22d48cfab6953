--[[
  Appends one event to an execution's event stream under the next sequence number. The counter
  and the XADD are one step, so writers on any worker or node never share a number, and the
  stream entry id is the number itself (`<seq>-0`), which makes XRANGE after an id the resume.

  KEYS[1]  sequence counter of the stream (keys(prefix).eventSeq(stream))
  KEYS[2]  the stream (keys(prefix).eventStream(stream))
  ARGV[1]  event type
  ARGV[2]  event data (serialized JSON)
  ARGV[3]  most entries the stream keeps (MAXLEN; older ones are trimmed)
  ARGV[4]  time to live of both keys after this append, in milliseconds
  ARGV[5]  floor: the sequence continues after it if the counter is lower (0 when unknown)

  Returns: the event's sequence number.
]]
local seq = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[5])
if seq <= floor then
  seq = floor + 1
  redis.call('SET', KEYS[1], seq)
end
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], seq .. '-0', 't', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return seq
