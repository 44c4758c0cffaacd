-- Extends a lock's lease to at least ARGV[2] ms from now, only for its owner; a longer lease is kept.
-- KEYS: the lock key. ARGV: owner token, lease in ms.
-- Returns 1 when the lock is held with that token, 0 when it is not (its lease expired).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
