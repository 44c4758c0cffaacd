-- Extends leases. ARGV: the lease in ms of runs, the lease in ms of jobs reserved ahead that wait for a worker, then
-- triples of id, lease token and what holds it: 's' a run about to start (given the full lease), '1' a run
-- whose start its worker has seen recorded, '0' a job waiting for a worker. A lease is never shortened (GT).
-- A run counts as started, so that its lease expiring uses an attempt (migrate.lua), only once a call after its start
-- says so ('1'): its worker sends that only for a run whose start call it saw succeed. A start whose reply was lost
-- ('s' applied, the worker never ran the job), or that arrives again when re-sent, gives the full lease but no started
-- run, so that its expiry is a stall. A re-sent call records nothing new.
-- Returns the tokens of the leases no longer held: tokens, not ids, since an instance may hold a stalled run and a new
-- run of one job, and only the stalled one lost its lease.
local now = now_millis()
local running_expiry, waiting_expiry = now + tonumber(ARGV[1]), now + tonumber(ARGV[2])
local lost, confirmed = {}, {}
for i = 3, #ARGV, 3 do
	local id, holds = ARGV[i], ARGV[i + 2]
	if redis.call('HGET', leases, id) == ARGV[i + 1] then
		redis.call('ZADD', reserved, 'XX', 'GT', (holds == '0') and waiting_expiry or running_expiry, id)
		if holds == '1' then
			confirmed[#confirmed + 1] = id
		end
	else
		lost[#lost + 1] = ARGV[i + 1]
	end
end
if #confirmed > 0 then
	redis.call('SADD', started, unpack(confirmed))
end
return lost
