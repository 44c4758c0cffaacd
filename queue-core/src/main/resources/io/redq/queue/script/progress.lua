-- Writes what a running job keeps across its attempts: its progress, its cursor and its finished steps, in the job's
-- progress hash, which expires after the given time unless written again and goes when the job completes (ack.lua).
-- KEYS: the queue's keys, then the job's progress key. ARGV: id, lease token, time to live (ms), the job's tag (its
-- creation time: a hash left by an earlier job of the same id, cancelled or completed by scripts that kept it, is
-- replaced rather than resumed), then field and value pairs.
-- Only the run that holds the job's lease writes, so that a run that stalled past its lease cannot move a cursor
-- back under the run that took the job over. A call re-sent after a reconnect writes the same values again.
-- Returns 1, or 0 when that run no longer holds the lease (nothing written).
local key = KEYS[#KEYS]
if redis.call('HGET', leases, ARGV[1]) ~= ARGV[2] then
	return 0
end
if redis.call('HGET', key, 't') ~= ARGV[4] then
	redis.call('DEL', key)
end
redis.call('HSET', key, 't', ARGV[4], unpack(ARGV, 5))
redis.call('PEXPIRE', key, ARGV[3])
return 1
