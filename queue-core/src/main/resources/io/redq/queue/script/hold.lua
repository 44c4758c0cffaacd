-- Renews the gates a running job holds (see admit.lua), or, with ARGV[4] = 0, leaves them when it finished and
-- wakes the first job parked in the line of each gate it freed (see Gates in common.lua). The last six KEYS as in
-- admit.lua. ARGV: id, lease token, lease ms (ignored when leaving), 1 to renew or 0 to leave.
-- A renewal never shortens a gate: a run holds its gates as long as its lease, which a handler may have extended
-- beyond the container's lease time (JobContext.extendLease). A re-sent leave finds the gates left and wakes no one.
local group_running, exclusive, job_running, queue_running = KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3],
	KEYS[#KEYS - 2]
local holder = ARGV[1] .. ':' .. ARGV[2]
local renew = ARGV[4] == '1'
local lease = tonumber(ARGV[3])

if redis.call('GET', exclusive) == holder then
	if renew then
		expire_after(exclusive, lease)
	else
		redis.call('DEL', exclusive)
		wake_line(exclusive, 1)
	end
end
for _, running in ipairs({job_running, queue_running, group_running}) do
	if renew then
		if redis.call('ZADD', running, 'XX', 'GT', 'CH', now_millis() + lease, holder) == 1 then
			expire_after(running, lease)
		end
	elseif redis.call('ZREM', running, holder) == 1 then
		wake_line(running, 1)
	end
end
if renew then
	redis.call('ZADD', holding, 'XX', 'GT', now_millis() + lease, holder)
else
	redis.call('ZREM', holding, holder)
	remove_present('HDEL', held, holder)
end
return 0
