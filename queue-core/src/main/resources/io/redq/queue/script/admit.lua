-- Admits a reserved job past its gates before it runs, or defers it: back to delayed with its attempt given back,
-- so waiting is not a failure. Gate keys (the last ten KEYS): the running set of its group and its waiting list, the
-- exclusive lock of its key, the running set of its job, the running set of its queue, the rate window of its job,
-- the waiting lists of the lock and the two running sets, then the places the rate limit of its job gave. ARGV: id,
-- lease token, lease ms, exclusive (1/0), job max running (0: none), queue max running (0: none), rate permits (0:
-- none), rate window ms, recheck ms, group max running (0: none, or the job is in no group).
-- A job deferred by a taken exclusive key or a full running set joins that gate's waiting list (id -> its deferred due
-- time), and the run that leaves the gate wakes the first one still delayed as deferred (hold.lua), dropping stale
-- entries, such as those of jobs admitted after a recheck; the recheck delay is only the fallback for a holder that
-- never leaves. A job deferred by the rate limit is given a place (id -> time): the time the window has room for it
-- after the jobs already given places, so that deferred jobs come back one by one at the limit's pace, not all at
-- once when the oldest start leaves the window (see below).
-- An admitted run starts: its lease becomes the full lease.
-- Returns 0 when admitted, -1 when the lease is no longer held by that token and the job is not delayed, else the
-- defer delay in ms.
-- A run holds the gates as '<id>:<token>', so that an earlier run of the same job (handed back while its handler
-- still ran) neither lets this one past its exclusive key nor frees the gates this one holds.
local group_running, group_waiting = KEYS[#KEYS - 9], KEYS[#KEYS - 8]
local exclusive, job_running, queue_running, rate = KEYS[#KEYS - 7], KEYS[#KEYS - 6], KEYS[#KEYS - 5], KEYS[#KEYS - 4]
local exclusive_waiting, job_waiting, queue_waiting, places = KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1],
	KEYS[#KEYS]
local id, token = ARGV[1], ARGV[2]
local holder = id .. ':' .. token
if redis.call('HGET', leases, id) ~= token then
	-- a call re-sent after it deferred the job finds the job delayed: it answers the deferral again, so that its worker
	-- does not take it for a lost lease
	local due = tonumber(redis.call('ZSCORE', delayed, id))
	if due then
		return math.max(1, due - now_millis())
	end
	return -1
end
local now = now_millis()
local lease = tonumber(ARGV[3])
local job_max, queue_max = tonumber(ARGV[5]), tonumber(ARGV[6])
local permits, window = tonumber(ARGV[7]), tonumber(ARGV[8])
local recheck = tonumber(ARGV[9])
local group_max = tonumber(ARGV[10])

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

local function full(running, max)
	if max <= 0 then
		return false
	end
	redis.call('ZREMRANGEBYSCORE', running, '-inf', now)
	return redis.call('ZCARD', running) >= max and not redis.call('ZSCORE', running, holder)
end

local wait, waiting = 0, nil
if owner and owner ~= holder then
	wait, waiting = recheck, exclusive_waiting
end
if wait == 0 and full(job_running, job_max) then
	wait, waiting = recheck, job_waiting
elseif wait == 0 and full(queue_running, queue_max) then
	wait, waiting = recheck, queue_waiting
elseif wait == 0 and full(group_running, group_max) then
	wait, waiting = recheck, group_waiting
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

if wait == 0 and permits > 0 then
	wait = rate_wait()
end
if wait > 0 then
	redis.call('ZREM', reserved, id)
	end_lease(id, token, 1)
	schedule(id, now + wait)
	if waiting then
		redis.call('ZADD', waiting, now + wait, id)
		redis.call('PEXPIRE', waiting, math.max(lease, recheck) * 2)
	end
	return wait
end
redis.call('ZADD', reserved, 'XX', 'GT', now + lease, id)
if ARGV[4] == '1' then
	redis.call('SET', exclusive, holder, 'PX', lease)
end
-- a running set expires with the last lease it counts, so that entries of holders that crashed do not stay forever
if job_max > 0 then
	redis.call('ZADD', job_running, now + lease, holder)
	expire_after(job_running, lease)
end
if queue_max > 0 then
	redis.call('ZADD', queue_running, now + lease, holder)
	expire_after(queue_running, lease)
end
if group_max > 0 then
	redis.call('ZADD', group_running, now + lease, holder)
	expire_after(group_running, lease)
end
if permits > 0 then
	redis.call('ZADD', rate, now, holder)
	redis.call('PEXPIRE', rate, window)
end
return 0
