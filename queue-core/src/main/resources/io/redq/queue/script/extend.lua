-- Extends leases. ARGV: the lease in ms of runs that started, the lease in ms of jobs reserved ahead that wait for a
-- worker, then triples of id, lease token and 1 when its run started (0 while it waits). A lease is never shortened
-- (GT). A started run is recorded in the started set, so that migrate.lua tells a run that started and lost its lease
-- (charged an attempt) from a job that never started (a stall); a re-sent call records nothing new.
-- Returns the tokens of the leases no longer held: tokens, not ids, since an instance may hold a stalled run and a new
-- run of one job, and only the stalled one lost its lease.
local now = now_millis()
local running_expiry, waiting_expiry = now + tonumber(ARGV[1]), now + tonumber(ARGV[2])
local lost, confirmed = {}, {}
for i = 3, #ARGV, 3 do
	local id = ARGV[i]
	if redis.call('HGET', leases, id) == ARGV[i + 1] then
		if ARGV[i + 2] == '1' then
			redis.call('ZADD', reserved, 'XX', 'GT', running_expiry, id)
			confirmed[#confirmed + 1] = id
		else
			redis.call('ZADD', reserved, 'XX', 'GT', waiting_expiry, id)
		end
	else
		lost[#lost + 1] = ARGV[i + 1]
	end
end
if #confirmed > 0 then
	redis.call('SADD', started, unpack(confirmed))
end
return lost
