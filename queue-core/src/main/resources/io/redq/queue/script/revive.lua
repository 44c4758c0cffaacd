-- Retries dead jobs with fresh attempts and stalls (ARGV[3] = 'retry') or deletes them (ARGV[3] = 'delete'), in a call
-- that is harmless when re-sent (see remembered in common.lua): a re-sent one revives no job that died again meanwhile.
-- ARGV: the call's sequence number and re-send window (ms), the action, then the ids; none means the oldest 1,000 dead
-- jobs. Returns how many jobs were retried or deleted.
local replied = remembered()
if replied then
	return tonumber(replied)
end
local action = ARGV[3]
local ids = {}
for i = 4, #ARGV do
	ids[#ids + 1] = ARGV[i]
end
if #ids == 0 then
	ids = redis.call('ZRANGE', dead, 0, 999)
end
local done = 0
for _, id in ipairs(ids) do
	if redis.call('ZREM', dead, id) == 1 then
		if action == 'retry' and redis.call('HEXISTS', jobs, id) == 1 then
			redis.call('HDEL', attempts, id)
			redis.call('HDEL', stalls, id)
			redis.call('HDEL', errors, id)
			redis.call('RPUSH', ready, id)
		else
			forget(id)
		end
		done = done + 1
	end
end
if done > 0 and action == 'retry' then
	signal()
end
return tonumber(remember(tostring(done)))
