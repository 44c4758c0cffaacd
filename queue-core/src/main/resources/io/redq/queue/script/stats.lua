-- Read-only: writes nothing, not even the queue's model key (see READ_ONLY in common.lua).
-- Counts a queue's jobs in one consistent read: {ready, delayed, reserved, dead, now, when the oldest ready job
-- became ready (-1 for none), 1 when the queue is paused or else 0}.
-- The oldest ready job is the first of the ready list's first 100 entries whose id has no stale entry (see unready),
-- so that the entry of a job moved elsewhere is not taken for it.
local oldest = -1
local head = redis.call('LINDEX', ready, 0)
if head and redis.call('EXISTS', stale) == 1 then
	head = nil
	for _, id in ipairs(redis.call('LRANGE', ready, 0, 99)) do
		if redis.call('HEXISTS', stale, id) == 0 then
			head = id
			break
		end
	end
end
if head then
	oldest = available_at(redis.call('HGET', jobs, head) or '') or -1
end
return {ready_count(), redis.call('ZCARD', delayed), redis.call('ZCARD', reserved),
	redis.call('ZCARD', dead), now_millis(), oldest, redis.call('EXISTS', paused)}
