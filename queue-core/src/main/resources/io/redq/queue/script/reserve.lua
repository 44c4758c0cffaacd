-- Reserves up to ARGV[1] ready jobs (none while the queue is paused) for ARGV[2] ms: each gets a fresh lease token,
-- '<sequence>:<attempt>', with one more attempt than it has used. ARGV[3]: the dead max age in ms (for the next due
-- time). ARGV[4]: the dead max size.
-- An id whose envelope is missing from the jobs hash (deleted outside Redq) has nothing to run: it is recorded dead
-- with the reason, so that an operator finds it, and returned for the caller to log.
-- Returns {now, next due (-1 for none), the number M of ids without data, then per job: id, envelope, attempt, token,
-- then the M ids without data}.
local now = now_millis()
local result = {now, 0, 0}
local missing = {}
-- a paused queue hands out nothing; running jobs finish
local ids = redis.call('EXISTS', paused) == 0 and redis.call('LPOP', ready, tonumber(ARGV[1]))
if ids then
	-- as a string, so that Redis does not format the number once per job
	local expiry = millis(now + tonumber(ARGV[2]))
	local sequence_number = redis.call('INCRBY', sequence, #ids) - #ids
	local envelopes = redis.call('HMGET', jobs, unpack(ids))
	local counts = redis.call('HMGET', attempts, unpack(ids))
	local lease_args, reserved_args, retried = {}, {}, {}
	for i, id in ipairs(ids) do
		if envelopes[i] then
			sequence_number = sequence_number + 1
			local attempt = (tonumber(counts[i]) or 0) + 1
			if counts[i] then
				retried[#retried + 1] = id
			end
			local token = string.format('%d:%d', sequence_number, attempt)
			lease_args[#lease_args + 1] = id
			lease_args[#lease_args + 1] = token
			reserved_args[#reserved_args + 1] = expiry
			reserved_args[#reserved_args + 1] = id
			result[#result + 1] = id
			result[#result + 1] = envelopes[i]
			result[#result + 1] = attempt
			result[#result + 1] = token
		else
			missing[#missing + 1] = id
		end
	end
	if #lease_args > 0 then
		redis.call('HSET', leases, unpack(lease_args))
		redis.call('ZADD', reserved, unpack(reserved_args))
	end
	-- a running job's attempts are in its lease
	if #retried > 0 then
		redis.call('HDEL', attempts, unpack(retried))
	end
	for _, id in ipairs(missing) do
		redis.call('HSET', errors, id,
			'Missing job data: the id was ready, but the jobs hash held no envelope for it (deleted outside Redq?)')
		bury(id, now, tonumber(ARGV[4]), tonumber(ARGV[3]))
		count_finished('d', 1, now)
		result[#result + 1] = id
	end
	result[3] = #missing
	-- more work is waiting: pass the wake-up on to another idle listener
	if redis.call('LLEN', ready) > 0 then
		signal()
	end
end
result[2] = next_due(tonumber(ARGV[3]))
return result
