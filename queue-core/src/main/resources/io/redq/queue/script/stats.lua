-- Counts a queue's jobs in one consistent read: {ready, delayed, reserved, dead, now, when the oldest ready job
-- became ready (-1 for none), 1 when the queue is paused or else 0}.
local oldest = -1
local head = redis.call('LINDEX', ready, 0)
if head then
	oldest = available_at(redis.call('HGET', jobs, head) or '') or -1
end
return {redis.call('LLEN', ready), redis.call('ZCARD', delayed), redis.call('ZCARD', reserved),
	redis.call('ZCARD', dead), now_millis(), oldest, redis.call('EXISTS', paused)}
