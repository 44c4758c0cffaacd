-- Records that an application instance is alive, in one slot (both keys share a hash tag).
-- KEYS: the index (sorted set of instance id -> when it expires, epoch ms by the Redis clock), the instance's own key.
-- ARGV: the instance id, its description (JSON), how long it lives without another heartbeat (ms), the most instances
-- the index keeps.
-- The instance's key, '<heartbeat time> <description>', expires by itself when its heartbeats stop; the index forgets
-- the instances that expired, keeps at most the given number (those expiring last), and expires with its last
-- instance. Sent again, the call changes nothing more. Returns the heartbeat's time.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[2], string.format('%d', now) .. ' ' .. ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now))
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if excess > 0 then
	redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
end
if redis.call('PTTL', KEYS[1]) < ttl then
	redis.call('PEXPIRE', KEYS[1], ttl)
end
return now
