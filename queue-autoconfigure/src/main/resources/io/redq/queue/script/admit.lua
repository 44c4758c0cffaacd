-- Admits a reserved job past its gates before it runs, or defers it: back to delayed with its attempt given back,
-- so waiting is not a failure. Gate keys (the last seven KEYS): the exclusive lock of its key, the running set of its
-- job, the running set of its queue, the rate window of its job, then the waiting lists of the first three. ARGV: id,
-- lease token, lease ms, exclusive (1/0), job max running (0: none), queue max running (0: none), rate permits (0:
-- none), rate window ms, recheck ms.
-- A job deferred by a taken exclusive key or a full running set joins that gate's waiting list (id -> its deferred due
-- time), and the run that leaves the gate wakes the first one still delayed as deferred (hold.lua), dropping stale
-- entries, such as those of jobs admitted after a recheck; the recheck delay is only the fallback for a holder that
-- never leaves. A job deferred by the rate limit is given a place: the time the window has room for it after the
-- jobs already given places, so that deferred jobs come back one by one at the limit's pace, not all at once when the
-- oldest start leaves the window. The place is kept in the rate window as '<id>:' until the job comes back.
-- Returns 0 when admitted, -1 when the lease is no longer held by that token, else the defer delay in ms.
-- A run holds the gates as '<id>:<token>', so that an earlier run of the same job (handed back while its handler
-- still ran) neither lets this one past its exclusive key nor frees the gates this one holds.
local exclusive, job_running, queue_running, rate = KEYS[#KEYS - 6], KEYS[#KEYS - 5], KEYS[#KEYS - 4], KEYS[#KEYS - 3]
local exclusive_waiting, job_waiting, queue_waiting = KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS]
local id, token = ARGV[1], ARGV[2]
local holder = id .. ':' .. token
if redis.call('HGET', leases, id) ~= token then
	return -1
end
local now = now_millis()
local lease = tonumber(ARGV[3])
local job_max, queue_max = tonumber(ARGV[5]), tonumber(ARGV[6])
local permits, window = tonumber(ARGV[7]), tonumber(ARGV[8])
local recheck = tonumber(ARGV[9])

local function full(running, max)
	if max <= 0 then
		return false
	end
	redis.call('ZREMRANGEBYSCORE', running, '-inf', now)
	return redis.call('ZCARD', running) >= max and not redis.call('ZSCORE', running, holder)
end

local wait, waiting = 0, nil
if ARGV[4] == '1' then
	local owner = redis.call('GET', exclusive)
	if owner and owner ~= holder then
		wait, waiting = recheck, exclusive_waiting
	end
end
if wait == 0 and full(job_running, job_max) then
	wait, waiting = recheck, job_waiting
elseif wait == 0 and full(queue_running, queue_max) then
	wait, waiting = recheck, queue_waiting
end

-- the rate window must outlive the latest place in it
local function keep_rate(until_time)
	if redis.call('PTTL', rate) < until_time - now then
		redis.call('PEXPIRE', rate, until_time - now)
	end
end

if wait == 0 and permits > 0 then
	redis.call('ZREMRANGEBYSCORE', rate, '-inf', now - window)
	local place_member = id .. ':'
	local place = tonumber(redis.call('ZSCORE', rate, place_member))
	if place and place > now then
		-- back before its place, e.g. triggered: it keeps the place
		wait = place - now
	else
		local nth_last
		if place then
			-- its place has come: the starts before it count, not the places of the jobs behind it; it is late when
			-- the jobs before it started later than their places
			redis.call('ZREM', rate, place_member)
			nth_last = redis.call('ZREVRANGEBYSCORE', rate, now, '-inf', 'WITHSCORES', 'LIMIT', permits - 1, 1)
		else
			-- a new job lines up behind the places already given
			nth_last = redis.call('ZREVRANGE', rate, permits - 1, permits - 1, 'WITHSCORES')
		end
		if nth_last[1] then
			place = math.max(now + 1, tonumber(nth_last[2]) + window)
			redis.call('ZADD', rate, place, place_member)
			keep_rate(place + window)
			wait = place - now
		end
	end
end
if wait > 0 then
	redis.call('ZREM', reserved, id)
	redis.call('HDEL', leases, id)
	redis.call('HINCRBY', attempts, id, -1)
	schedule(id, now + wait)
	if waiting then
		redis.call('ZADD', waiting, now + wait, id)
		redis.call('PEXPIRE', waiting, math.max(lease, recheck) * 2)
	end
	return wait
end
if ARGV[4] == '1' then
	redis.call('SET', exclusive, holder, 'PX', lease)
end
if job_max > 0 then
	redis.call('ZADD', job_running, now + lease, holder)
end
if queue_max > 0 then
	redis.call('ZADD', queue_running, now + lease, holder)
end
if permits > 0 then
	redis.call('ZADD', rate, now, holder)
	keep_rate(now + window)
end
return 0
