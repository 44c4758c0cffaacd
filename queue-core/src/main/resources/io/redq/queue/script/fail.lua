-- Records a failed attempt. ARGV: id, lease token, error, retry delay in ms (-1: dead), dead max size, dead max age ms,
-- and the error's stack trace (optional: an empty or missing one removes the trace of an earlier failure).
-- Returns 1, or 0 when the lease is no longer held by that token.
local id = ARGV[1]
local lease = redis.call('HGET', leases, id)
if lease ~= ARGV[2] then
	return 0
end
local now = now_millis()
local delay = tonumber(ARGV[4])
redis.call('ZREM', reserved, id)
end_lease(id, lease, 0)
redis.call('HSET', errors, id, ARGV[3])
if ARGV[7] and ARGV[7] ~= '' then
	redis.call('HSET', traces, id, ARGV[7])
else
	redis.call('HDEL', traces, id)
end
-- a death counts its attempt as failed too (see count_finished)
count_finished(0, 1, (delay < 0) and 1 or 0, now)
if delay < 0 then
	bury(id, now, tonumber(ARGV[5]), tonumber(ARGV[6]))
elseif delay == 0 then
	make_ready({id}, false)
	signal()
else
	schedule(id, now + delay)
end
return 1
