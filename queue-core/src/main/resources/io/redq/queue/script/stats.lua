-- Read-only: writes nothing, not even the queue's model key (see READ_ONLY in common.lua).
-- Counts a queue's jobs in one consistent read: {ready, delayed, reserved, dead, now, when the oldest ready job
-- became ready (-1 for none), 1 when the queue is paused or else 0, then the ready jobs per priority level from the
-- lowest to the highest, then the number of groups that have ready jobs (see Priorities and groups in common.lua)}.
-- The oldest ready job is the oldest of the heads of the lines: the first of the ready list's first 100 entries whose
-- id has no stale entry (see unready), so that the entry of a job moved elsewhere is not taken for it, and the first
-- member of each level's band of queued.
local has_stale = redis.call('EXISTS', stale) == 1
local heads = {}
local head = redis.call('LINDEX', ready, 0)
if head and has_stale then
	head = nil
	for _, id in ipairs(redis.call('LRANGE', ready, 0, 99)) do
		if redis.call('HEXISTS', stale, id) == 0 then
			head = id
			break
		end
	end
end
if head then
	heads[#heads + 1] = head
end
local per_level = {}
local any_queued = redis.call('EXISTS', queued) == 1
local groups = 0
for level = LOWEST, HIGHEST do
	local count = 0
	if any_queued then
		local low, high = band(level)
		count = redis.call('ZCOUNT', queued, low, high)
		local first = redis.call('ZRANGE', queued, low, high, 'BYSCORE', 'LIMIT', 0, 1)[1]
		if first then
			heads[#heads + 1] = first
		end
		groups = groups + (tonumber(redis.call('HGET', fair, 'c' .. level)) or 0)
	end
	if level == DEFAULT_LEVEL then
		-- stale entries are counted here, where scripts from before levels count them
		count = count + redis.call('LLEN', ready) - (tonumber(redis.call('HGET', stale, '')) or 0)
	end
	per_level[#per_level + 1] = count
end
local oldest = -1
for _, id in ipairs(heads) do
	local at = available_at(redis.call('HGET', jobs, id) or '')
	if at and (oldest < 0 or at < oldest) then
		oldest = at
	end
end
-- the delayed jobs are those due at a time and those parked behind gates, one entry each in lines (a parked job left in
-- delayed by model 6 is counted once, see LEFT_IN_DELAYED in common.lua)
local pending = redis.call('ZCOUNT', delayed, '-inf', '(inf') + redis.call('ZCARD', lines)
local result = {ready_count(), pending, redis.call('ZCOUNT', reserved, '-inf', '(inf'),
	redis.call('ZCARD', dead), now_millis(), oldest, redis.call('EXISTS', paused)}
for _, count in ipairs(per_level) do
	result[#result + 1] = count
end
result[#result + 1] = groups
return result
