-- Enqueues one tick of a recurring job, at most once per tick across every application instance.
-- The last of KEYS is the job's state, a hash: 'last' is the latest tick handled (epoch ms), 'paused' is set while paused.
-- ARGV: tick (epoch ms), mode ('t' a scheduled tick, 'c' one catch-up run for missed ticks), job id, envelope body
-- (the envelope JSON without its opening brace: the script prepends the Redis-clock times).
-- A tick is enqueued only if it is due on the Redis clock and later than 'last'; it then becomes 'last'. A tick that
-- comes while paused becomes 'last' too, so it is dropped rather than caught up.
-- Returns {status, now}: 0 not due yet, 1 enqueued, 2 handled already, 3 paused, 4 nothing recorded before (a
-- catch-up on the first start records the tick and runs nothing).
local state = KEYS[#KEYS]
local now = now_millis()
local tick = tonumber(ARGV[1])
if tick > now then
	return {0, now}
end
local last = redis.call('HGET', state, 'last')
if last and tonumber(last) >= tick then
	return {2, now}
end
redis.call('HSET', state, 'last', ARGV[1])
if not last and ARGV[2] == 'c' then
	return {4, now}
end
if redis.call('HEXISTS', state, 'paused') == 1 then
	return {3, now}
end
local id = ARGV[3]
if redis.call('HEXISTS', jobs, id) == 1 then
	-- only if the state was deleted while the tick's job was still there
	return {2, now}
end
if redis.call('EXISTS', stale) == 1 then
	forget_left_member(id)
end
create(id, now, now, ARGV[4])
signal()
return {1, now}
