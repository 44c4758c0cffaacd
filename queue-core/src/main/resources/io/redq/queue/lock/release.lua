-- Releases a lock, only for its owner. KEYS: the lock key. ARGV: owner token.
-- Returns 1 when released, 0 when the lock is no longer held with that token (its lease expired).
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
