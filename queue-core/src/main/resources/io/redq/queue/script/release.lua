-- Hands reserved jobs back at once (graceful shutdown), at the head of their level's line (see Priorities in
-- common.lua). A job that ran and used its
-- last attempt (interrupted after the shutdown timeout) dies instead, as it would have after a lost lease.
-- ARGV: dead max size, dead max age ms, then triples of id, lease token and 1 to give the attempt back (the job never
-- started) or 0.
-- Returns the number handed back to the ready list.
local released, now = {}, nil
for i = 3, #ARGV, 3 do
	local id = ARGV[i]
	local lease = redis.call('HGET', leases, id)
	if lease == ARGV[i + 1] then
		redis.call('ZREM', reserved, id)
		local attempt = end_lease(id, lease, tonumber(ARGV[i + 2]))
		if ARGV[i + 2] == '0' and attempt >= max_attempts_of(redis.call('HGET', jobs, id)) then
			now = now or now_millis()
			redis.call('HSET', errors, id, 'Interrupted on attempt ' .. attempt .. ', its last: its worker shut down')
			bury(id, now, tonumber(ARGV[1]), tonumber(ARGV[2]))
			count_finished(0, 1, 1, now)
		else
			released[#released + 1] = id
		end
	end
end
-- the last consumer of a queue may be stopping: a reserved set left with RESERVED_END alone goes now, as the migrator
-- would delete it on its next pass
if redis.call('ZCARD', reserved) == 1 and redis.call('ZSCORE', reserved, RESERVED_END) then
	redis.call('DEL', reserved)
end
if #released > 0 then
	make_ready(released, true)
	signal()
end
return #released
