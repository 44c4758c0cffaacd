-- Renews the gates a running job holds (see admit.lua), or, with ARGV[3] = 0, leaves them when it finished.
-- the last four KEYS as in admit.lua. ARGV: id, lease token, lease ms (ignored when leaving), 1 to renew or 0 to
-- leave.
local exclusive, job_running, queue_running = KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1]
local holder = ARGV[1] .. ':' .. ARGV[2]
local renew = ARGV[4] == '1'
if redis.call('GET', exclusive) == holder then
	if renew then
		redis.call('PEXPIRE', exclusive, tonumber(ARGV[3]))
	else
		redis.call('DEL', exclusive)
	end
end
for _, running in ipairs({job_running, queue_running}) do
	if renew then
		redis.call('ZADD', running, 'XX', now_millis() + tonumber(ARGV[3]), holder)
	else
		redis.call('ZREM', running, holder)
	end
end
return 0
