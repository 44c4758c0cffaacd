-- Read-only: writes nothing but the waiting key, which expires (not even the queue's model key, see READ_ONLY in
-- common.lua).
-- Reads where a job's result stands, for a caller that waits for it, and keeps the queue's waiting key (see announce)
-- for as long as the caller waits: the caller subscribed to that key's channel before, so that a job that finishes
-- after this read is announced to it. KEYS: the queue's keys, then the job's result key. ARGV: id, how the caller
-- listens ('s' sharded, 'p' plain), how long it waits at most (ms).
-- Returns {'pending'} while the job lives, {'dead', last error} once it died, {'done', result} once it completed with a
-- result kept, else {'unknown'}: no such job, its result expired or it returned none.
local id = ARGV[1]
if redis.call('PTTL', waiting) < tonumber(ARGV[3]) then
	redis.call('SET', waiting, ARGV[2], 'PX', ARGV[3])
end
if redis.call('HEXISTS', jobs, id) == 1 then
	if redis.call('ZSCORE', dead, id) then
		return {'dead', redis.call('HGET', errors, id) or ''}
	end
	return {'pending'}
end
local result = redis.call('GET', KEYS[#KEYS])
if result then
	return {'done', result}
end
return {'unknown'}
