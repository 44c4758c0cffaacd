-- Renews the gates a running job holds (see admit.lua), or, with ARGV[4] = 0, leaves them when it finished and
-- wakes the first job waiting for each gate it freed. The last ten KEYS as in admit.lua. ARGV: id, lease token,
-- lease ms (ignored when leaving), 1 to renew or 0 to leave.
-- A renewal never shortens a gate: a run holds its gates as long as its lease, which a handler may have extended
-- beyond the container's lease time (JobContext.extendLease).
local group_running, group_waiting = KEYS[#KEYS - 9], KEYS[#KEYS - 8]
local exclusive, job_running, queue_running = KEYS[#KEYS - 7], KEYS[#KEYS - 6], KEYS[#KEYS - 5]
local exclusive_waiting, job_waiting, queue_waiting = KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1]
local holder = ARGV[1] .. ':' .. ARGV[2]
local renew = ARGV[4] == '1'

-- Moves the first waiting job that is still delayed as it was deferred to the head of its level's line. An entry whose
-- job has since been rescheduled, cancelled or admitted is stale and dropped, so that no job becomes ready before the
-- due time it has now.
local function wake(waiting)
	while true do
		local first = redis.call('ZPOPMIN', waiting)
		if not first[1] then
			return
		end
		if redis.call('ZSCORE', delayed, first[1]) == first[2] then
			redis.call('ZREM', delayed, first[1])
			make_ready({first[1]}, true)
			signal()
			return
		end
	end
end

if redis.call('GET', exclusive) == holder then
	if renew then
		expire_after(exclusive, tonumber(ARGV[3]))
	else
		redis.call('DEL', exclusive)
		wake(exclusive_waiting)
	end
end
for _, gate in ipairs({{job_running, job_waiting}, {queue_running, queue_waiting}, {group_running, group_waiting}}) do
	local running, waiting = gate[1], gate[2]
	if renew then
		if redis.call('ZADD', running, 'XX', 'GT', 'CH', now_millis() + tonumber(ARGV[3]), holder) == 1 then
			expire_after(running, tonumber(ARGV[3]))
		end
	elseif redis.call('ZREM', running, holder) == 1 then
		wake(waiting)
	end
end
return 0
