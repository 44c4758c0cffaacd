-- Cancels a pending (ready or delayed) job, or else the successor queued behind a running one, in a call that is
-- harmless when re-sent (see remembered in common.lua): a re-sent cancel cancels no job dispatched meanwhile. KEYS: the
-- queue's keys, then the job's progress hash (see progress.lua), which goes with a cancelled job, then the call's lane
-- key. ARGV: the call's sequence number and re-send window (ms), id. Returns 1 when something was removed, 0 otherwise.
local replied = remembered()
if replied then
	return tonumber(replied)
end
local id = ARGV[3]
-- a parked job leaves its line with the rest of it (see forget in common.lua)
local cancelled = redis.call('ZREM', delayed, id) == 1 or is_parked(id)
if cancelled and redis.call('EXISTS', stale) == 1 then
	-- a delayed job has no member of queued but one left by a script from before levels that rescheduled it
	forget_left_member(id)
end
if not cancelled and is_ready(id) then
	unready(id)
	cancelled = true
end
if cancelled then
	batch_member_done({id}, 'c')
	forget(id)
	redis.call('DEL', KEYS[#KEYS - 1])
	-- a pending job with a successor ran before and waits for a retry: the id is cancelled as a whole
	redis.call('HDEL', successors, id)
	return tonumber(remember('1'))
end
return tonumber(remember(tostring(redis.call('HDEL', successors, id))))
