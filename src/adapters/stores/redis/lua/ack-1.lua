--[[
  Acknowledges one broadcast: records that this worker's handlers have finished.
  Push and expiry are one step so a worker dying in between cannot leave a key without a TTL.

  KEYS[1]  ack list of the broadcast (keys(prefix).ack(nonce))
  ARGV[1]  acknowledging worker id
  ARGV[2]  time to live of the list, in milliseconds

  Returns: the list length after the push.
]]
local length = redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return length
