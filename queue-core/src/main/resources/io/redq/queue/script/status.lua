-- Read-only: writes nothing, not even the queue's model key (see READ_ONLY in common.lua).
-- Tells where a job is. ARGV: id. Returns {now, state, time}: state 'delayed' (time = due, -1 for a job parked behind
-- a gate: see Gates in common.lua), 'ready', 'reserved'
-- (time = lease expiry), 'dead' (time = death), 'completed' (time = completion; only while the id is among the kept
-- completed ids) or 'none' (finished or unknown); time is -1 where it has none.
local id = ARGV[1]
local now = now_millis()
for _, state in ipairs({{'delayed', delayed}, {'reserved', reserved}, {'dead', dead}}) do
	-- a score of +inf is a parked job left in delayed by model 6 (see LEFT_IN_DELAYED in common.lua)
	local score = redis.call('ZSCORE', state[2], id)
	if score == 'inf' then
		return {now, state[1], -1}
	elseif score then
		return {now, state[1], tonumber(score)}
	end
end
if is_parked(id) then
	return {now, 'delayed', -1}
end
if redis.call('HEXISTS', jobs, id) == 1 then
	return {now, 'ready', -1}
end
local completed_at = redis.call('ZSCORE', completed, id)
if completed_at then
	return {now, 'completed', tonumber(completed_at)}
end
return {now, 'none', -1}
