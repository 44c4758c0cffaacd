-- Renews the gates a running job holds (see admit.lua), or, with ARGV[4] = 0, leaves them when it finished and
-- wakes the first job parked in the line of each gate it freed (see Gates in common.lua). The last six KEYS as in
-- admit.lua. ARGV: id, lease token, lease ms (renewing: the gates'; leaving: the lease to reserve the first woken job
-- with for the caller, 0 for none), 1 to renew or 0 to leave; leaving, optionally: how the envelope of a job whose
-- gates are the leaver's goes on after its times and level ('"group":<group>,"job":<job>,' or '"job":<job>,' as
-- JobEnvelope writes them; '' for none: the leaver has an exclusive key or a rate limit), and the job, queue and group
-- max running of the leaver's gates (0: none), then, to acknowledge the leaver's run as completed in the same call
-- (before it leaves, as ack.lua acknowledges a run that returned nothing and wrote no progress), how many completed ids
-- to keep ('' not to), then how many more jobs may join the run of the job handed over (see below; 0 or none: none).
-- A renewal never shortens a gate: a run holds its gates as long as its lease, which a handler may have extended
-- beyond the container's lease time (JobContext.extendLease). A re-sent leave finds the gates left and wakes no one.
-- Returns nothing ({}), or the job handed over: {id, envelope, attempt, lease token, 1 when admitted past its gates
-- else 0}, then id, envelope, attempt and lease token of each job that joined its run; acknowledging, the same after 1
-- when the acknowledgement was refused (see ack.lua) else 0, and last, when its completion created chain steps, one
-- nested reply with their job names as ack.lua returns it. A re-sent leave that acknowledged finds the job gone,
-- which neither completes nor refuses it again.
local group_running, exclusive, job_running, queue_running = KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3],
	KEYS[#KEYS - 2]
local holder = ARGV[1] .. ':' .. ARGV[2]
local renew = ARGV[4] == '1'
local lease = tonumber(ARGV[3])
local refused, created
if not renew and ARGV[9] and ARGV[9] ~= '' then
	local refused_ids
	refused_ids, created = acknowledge({ARGV[1]}, {ARGV[2]}, tonumber(ARGV[9]))
	refused = #refused_ids > 0
end

-- The first job woken by a leave is reserved for the worker that left, as reserve.lua reserves a job, unless the queue
-- is paused: the worker runs it next (or hands it to another of its container's workers while jobs wait for one), so
-- that the place freed goes on without a wake-up and a reservation. A job whose gates are the leaver's (the same job
-- and group, the same limits) is let through them here while they have room (see pass_gates), so that it needs no
-- admission call of its own (a drain behind a limit of 1 then costs one call per job, which acknowledges the run that
-- left too); any other is let through by the worker (admit.lua). A reply lost on the way leaves it to its lease, as a
-- lost reservation does, and the gates it passed to the lease of its hold (migrate.lua wakes their lines). A job
-- without data is made ready (reserve.lua buries it).
local handed, handed_gate
local hand_over = not renew and lease > 0 and redis.call('EXISTS', paused) == 0
local function wake(gate)
	if handed or not hand_over then
		wake_line(gate, 1)
		return
	end
	handed_gate = gate
	local id = unpark(gate, 1)[1]
	if not id then
		return
	end
	local envelope = redis.call('HGET', jobs, id)
	if not envelope then
		make_ready({id}, true)
		signal()
		return
	end
	local used = tonumber(redis.call('HGET', attempts, id))
	local token = string.format('%d:%d', redis.call('INCR', sequence), (used or 0) + 1)
	remove_present('HDEL', runs, id)
	if used then
		redis.call('HDEL', attempts, id)
	end
	-- its lease in reserved is written below, as it passes the gates or not
	redis.call('HSET', leases, id, token)
	handed = {id, envelope, (used or 0) + 1, token}
end

-- A leave that names its gates (ARGV[5] and on) skips the gates it never held: a leaver whose gates are the same for
-- the job handed over has no exclusive key, and a run holds a place only in a running set that has a limit (admit.lua
-- and pass_gates), whose limit the leaver sends as it passed them.
local same_gates = ARGV[5] or ''
if same_gates == '' and redis.call('GET', exclusive) == holder then
	if renew then
		expire_after(exclusive, lease)
	else
		redis.call('DEL', exclusive)
		wake(exclusive)
	end
end
for i, running in ipairs({job_running, queue_running, group_running}) do
	if renew then
		if redis.call('ZADD', running, 'XX', 'GT', 'CH', now_millis() + lease, holder) == 1 then
			expire_after(running, lease)
		end
	elseif (same_gates == '' or (tonumber(ARGV[5 + i]) or 1) > 0) and redis.call('ZREM', running, holder) == 1 then
		wake(running)
	end
end
if renew then
	redis.call('ZADD', holding, 'XX', 'GT', now_millis() + lease, holder)
else
	redis.call('ZREM', holding, holder)
	redis.call('HDEL', held, holder)
end
local acknowledged = {}
if refused ~= nil then
	acknowledged[1] = refused and 1 or 0
end
if not handed then
	acknowledged[#acknowledged + 1] = created
	return acknowledged
end
handed[5] = 0
if same_gates ~= '' then
	-- the envelope goes on after its times and level as the leaver's would: the same job and group
	local id, now = handed[1], now_millis()
	local next_holder = id .. ':' .. handed[4]
	local running = {{job_running, tonumber(ARGV[6])}, {queue_running, tonumber(ARGV[7])},
		{group_running, tonumber(ARGV[8])}}
	if has_gates(handed[2], same_gates)
			and not running_full(job_running, running[1][2], next_holder, now)
			and not running_full(queue_running, running[2][2], next_holder, now)
			and not running_full(group_running, running[3][2], next_holder, now) then
		pass_gates(id, next_holder, now, lease, nil, running)
		handed[5] = 1
		join_run(handed, handed_gate, tonumber(ARGV[10]) or 0, same_gates, now, lease)
	end
end
if handed[5] == 0 then
	redis.call('ZADD', reserved, '+inf', RESERVED_END, now_millis() + lease, handed[1])
end
for _, field in ipairs(handed) do
	acknowledged[#acknowledged + 1] = field
end
acknowledged[#acknowledged + 1] = created
return acknowledged
