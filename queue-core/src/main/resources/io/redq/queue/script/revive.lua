-- Retries dead jobs with fresh attempts and stalls (ARGV[3] = 'retry') or deletes them (ARGV[3] = 'delete'), in a call
-- that is harmless when re-sent (see remembered in common.lua): a re-sent one revives no job that died again meanwhile.
-- ARGV: the call's sequence number and re-send window (ms), the action, the cutoff (epoch ms), then the ids; without
-- ids, the oldest 1,000 dead jobs that died at or before the cutoff, so that a caller that goes through every dead job
-- in calls of 1,000 takes those that were dead when it began, not the jobs it revived that died again.
-- Returns how many jobs were retried or deleted.
local replied = remembered()
if replied then
	return tonumber(replied)
end
local action = ARGV[3]
local ids = {}
for i = 5, #ARGV do
	ids[#ids + 1] = ARGV[i]
end
if #ids == 0 then
	ids = redis.call('ZRANGEBYSCORE', dead, '-inf', ARGV[4], 'LIMIT', 0, 1000)
end
local done = 0
for _, id in ipairs(ids) do
	if redis.call('ZREM', dead, id) == 1 then
		if action == 'retry' and redis.call('HEXISTS', jobs, id) == 1 then
			redis.call('HDEL', attempts, id)
			redis.call('HDEL', stalls, id)
			redis.call('HDEL', errors, id)
			-- a late acknowledgement of the run that died must not complete the retry unrun
			redis.call('HDEL', runs, id)
			make_ready({id}, false)
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
