-- Acquires a lock. KEYS: the lock key, the fencing counter key (same hash tag). ARGV: owner token, lease in ms.
-- Returns {1, fencing token} when acquired, else {0, remaining lease of the holder in ms (-1 if it has none)}.
-- Owner tokens are unique to one acquisition, so finding the lock held with this token means the call was run
-- before (a client re-sent it after a lost reply): it is acquired, with the fencing token and lease of that run.
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
	return { 1, tonumber(redis.call('GET', KEYS[2])) }
end
if holder then
	return { 0, redis.call('PTTL', KEYS[1]) }
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { 1, redis.call('INCR', KEYS[2]) }
