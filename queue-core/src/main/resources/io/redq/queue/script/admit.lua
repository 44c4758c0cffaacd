-- Admits a reserved job past its gates before it runs, or stops it with its attempt given back, so that waiting is not
-- a failure: parked, or back to delayed. Gate keys (the last six KEYS): the running set of its group, the exclusive lock of its
-- key, the running set of its job, the running set of its queue, the rate window of its job and the places the rate
-- limit of its job gave. ARGV: id, lease token, lease ms, exclusive (1/0), job max running (0: none), queue max running
-- (0: none), rate permits (0: none), rate window ms, group max running (0: none, or the job is in no group).
-- A job stopped by a taken exclusive key or a full running set is parked in that gate's line (see Gates in
-- common.lua): it costs nothing until a run leaves the gate (hold.lua) or a holder's lease expires (migrate.lua). A
-- job deferred by the rate limit is given a place (id -> time): the time the window has room for it after the jobs
-- already given places, so that deferred jobs come back one by one at the limit's pace, not all at once when the
-- oldest start leaves the window (see below).
-- An admitted run starts: its lease becomes the full lease, and it is recorded holding its gates (holding, held).
-- Returns 0 when admitted, -1 when the lease is no longer held by that token and the job is not delayed, -2 when
-- parked, else the defer delay in ms.
-- A run holds the gates as '<id>:<token>', so that an earlier run of the same job (handed back while its handler
-- still ran) neither lets this one past its exclusive key nor frees the gates this one holds.
local group_running, exclusive, job_running, queue_running = KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3],
	KEYS[#KEYS - 2]
local rate, places = KEYS[#KEYS - 1], KEYS[#KEYS]
local id, token = ARGV[1], ARGV[2]
local holder = id .. ':' .. token
if redis.call('HGET', leases, id) ~= token then
	-- a call re-sent after it parked or deferred the job finds the job so: it answers that again, so that its worker
	-- does not take it for a lost lease
	local due = due_of(id)
	if due == 'inf' then
		return -2
	elseif due then
		return math.max(1, tonumber(due) - now_millis())
	end
	return -1
end
local now = now_millis()
local lease = tonumber(ARGV[3])
local job_max, queue_max = tonumber(ARGV[5]), tonumber(ARGV[6])
local permits, window = tonumber(ARGV[7]), tonumber(ARGV[8])
local group_max = tonumber(ARGV[9])

local owner = ARGV[4] == '1' and redis.call('GET', exclusive)

-- A run found holding a gate was admitted by an earlier run of this call (a client re-sent it after a lost reply):
-- admitted again, without counting its start twice or deferring it behind itself.
if owner == holder
		or (job_max > 0 and redis.call('ZSCORE', job_running, holder))
		or (queue_max > 0 and redis.call('ZSCORE', queue_running, holder))
		or (group_max > 0 and redis.call('ZSCORE', group_running, holder))
		or (permits > 0 and redis.call('ZSCORE', rate, holder)) then
	return 0
end

local gate
if owner and owner ~= holder then
	gate = exclusive
elseif running_full(job_running, job_max, holder, now) then
	gate = job_running
elseif running_full(queue_running, queue_max, holder, now) then
	gate = queue_running
elseif running_full(group_running, group_max, holder, now) then
	gate = group_running
end
if gate then
	-- a woken job that finds its gate taken again takes back its place in line; one stopped by another gate passes
	-- the place it was woken for to the next in its old line
	local entry = redis.call('HGET', parked, id)
	if not entry or string.sub(entry, 1, #gate + 1) ~= gate .. '\0' then
		if entry then
			redis.call('ZREM', lines, entry)
			wake_line(string.match(entry, '^([^%z]*)%z'), 1)
		end
		entry = gate .. '\0' .. string.format('%016d', redis.call('INCR', sequence)) .. '\0' .. id
		redis.call('HSET', parked, id, entry)
	end
	redis.call('ZADD', lines, 0, entry)
	redis.call('ZREM', reserved, id)
	end_lease(id, token, 1, true)
	return -2
end

-- How long a job that comes back after its place keeps it: it then needs room among the starts only, ahead of the
-- jobs still waiting for their places. A job later than this lines up like a new one.
local PLACE_KEPT = 3600000

-- The rate limit keeps the starts within the window, and the places it gave. A new job needs room among the starts
-- and the places still to come: it lines up behind them, one window after the start or place <permits> before it.
-- A job whose place has come needs room among the starts only; when the jobs before it started later than their
-- places, it takes a new place one window after the start <permits> before it.
local function rate_wait()
	redis.call('ZREMRANGEBYSCORE', rate, '-inf', now - window)
	redis.call('ZREMRANGEBYSCORE', places, '-inf', now - PLACE_KEPT)
	local place = tonumber(redis.call('ZSCORE', places, id))
	if place and place > now then
		-- back before its place, e.g. triggered: it keeps the place
		return place - now
	end
	local nth_last
	if place then
		redis.call('ZREM', places, id)
		nth_last = redis.call('ZREVRANGE', rate, permits - 1, permits - 1, 'WITHSCORES')
	else
		-- the last place goes when its job is no longer delayed at it (cancelled, rescheduled, purged), so that it
		-- does not hold up the jobs behind it; places further ahead go when their time has passed
		while true do
			local last = redis.call('ZRANGE', places, -1, -1, 'WITHSCORES')
			if not last[1] or tonumber(last[2]) <= now
					or tonumber(redis.call('ZSCORE', delayed, last[1])) == tonumber(last[2]) then
				break
			end
			redis.call('ZREM', places, last[1])
		end
		local coming = redis.call('ZCOUNT', places, '(' .. now, '+inf')
		if coming >= permits then
			nth_last = redis.call('ZREVRANGE', places, permits - 1, permits - 1, 'WITHSCORES')
		else
			nth_last = redis.call('ZREVRANGE', rate, permits - coming - 1, permits - coming - 1, 'WITHSCORES')
		end
	end
	if not nth_last[1] then
		return 0
	end
	place = math.max(now + 1, tonumber(nth_last[2]) + window)
	redis.call('ZADD', places, place, id)
	if redis.call('PTTL', places) < place + PLACE_KEPT - now then
		redis.call('PEXPIRE', places, place + PLACE_KEPT - now)
	end
	return place - now
end

local wait = (permits > 0) and rate_wait() or 0
if wait > 0 then
	redis.call('ZREM', reserved, id)
	end_lease(id, token, 1, true)
	-- a job woken for a place passes it to the next in its line: it comes back at its place in time
	leave_lines(id)
	schedule(id, now + wait)
	return wait
end
if permits > 0 then
	redis.call('ZADD', rate, now, holder)
	redis.call('PEXPIRE', rate, window)
end
pass_gates(id, holder, now, lease, ARGV[4] == '1' and exclusive or nil,
	{{job_running, job_max}, {queue_running, queue_max}, {group_running, group_max}})
return 0
