-- Acquires a lock. KEYS: the lock key, the fencing counter key (same hash tag). ARGV: owner token, lease in ms.
-- Returns {1, fencing token} when acquired, else {0, remaining lease of the holder in ms (-1 if it has none)}.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return { 1, redis.call('INCR', KEYS[2]) }
end
return { 0, redis.call('PTTL', KEYS[1]) }
