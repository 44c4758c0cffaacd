-- Reserves up to ARGV[1] ready jobs (none while the queue is paused) for ARGV[2] ms: each gets a fresh lease token,
-- '<sequence>:<attempt>', with one more attempt than it has used. ARGV[3]: the dead max age in ms (for the next due
-- time).
-- Returns {now, next due (-1 for none), then per job: id, envelope, attempt, token}.
local now = now_millis()
local result = {now, 0}
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
		-- an id without data was removed behind our back: nothing to run
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
	-- more work is waiting: pass the wake-up on to another idle listener
	if redis.call('LLEN', ready) > 0 then
		signal()
	end
end
result[2] = next_due(tonumber(ARGV[3]))
return result
