-- Pauses (ARGV[1] '1') or resumes (ARGV[1] '0') a recurring job. The last of KEYS is the job's state (see recurring-tick).
-- Resuming records the Redis time as the latest tick handled, so that ticks that came while paused are not caught up.
-- Returns 1 when the state changed, 0 when the job was paused (or running) already.
local state = KEYS[#KEYS]
if ARGV[1] == '1' then
	return redis.call('HSET', state, 'paused', '1')
end
if redis.call('HDEL', state, 'paused') == 0 then
	return 0
end
local now = now_millis()
local last = redis.call('HGET', state, 'last')
if not last or tonumber(last) < now then
	redis.call('HSET', state, 'last', now)
end
return 1
