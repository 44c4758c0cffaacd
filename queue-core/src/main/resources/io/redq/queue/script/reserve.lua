-- Reserves up to ARGV[1] ready jobs (none while the queue is paused) for ARGV[2] ms: each gets a fresh lease token,
-- '<sequence>:<attempt>', with one more attempt than it has used. ARGV[3]: the dead max age in ms (for the next due
-- time). ARGV[4]: the dead max size.
-- A reserved job counts as started in runs (see ack.lua): a container reserves only what its workers start within
-- about 100 ms, and starts them on this lease without another call, so that a late acknowledgement of an earlier run
-- is refused from the moment another worker may run the job.
-- An id whose envelope is missing from the jobs hash (deleted outside Redq) has nothing to run: it is recorded dead
-- with the reason, so that an operator finds it, and returned for the caller to log.
-- Returns {now, next due (-1 for none), the number M of ids without data, then per job: id, envelope, attempt, token,
-- then the M ids without data}.
-- Entries of the ready list counted stale (see unready in common.lua) are skipped, at most MAX_SKIPPED per call, so
-- that a call may hand out fewer jobs than asked; a queue that has none pays one EXISTS per batch.
local MAX_SKIPPED = 1000
local now = now_millis()
local result = {now, 0, 0}
local missing = {}

-- Pops up to wanted live entries of the ready list.
local function pop_ready(wanted)
	local ids, skipped = {}, 0
	while #ids < wanted and skipped < MAX_SKIPPED do
		local popped = redis.call('LPOP', ready, wanted - #ids)
		if not popped then
			break
		end
		if redis.call('EXISTS', stale) == 0 then
			for _, id in ipairs(popped) do
				ids[#ids + 1] = id
			end
		else
			local counts = redis.call('HMGET', stale, unpack(popped))
			local left, skipped_now = {}, 0
			for i, id in ipairs(popped) do
				left[id] = left[id] or tonumber(counts[i]) or 0
				if left[id] > 0 then
					left[id] = left[id] - 1
					skipped_now = skipped_now + 1
					if left[id] == 0 then
						redis.call('HDEL', stale, id)
					else
						redis.call('HSET', stale, id, left[id])
					end
				else
					ids[#ids + 1] = id
				end
			end
			if skipped_now > 0 and redis.call('HINCRBY', stale, '', -skipped_now) <= 0 then
				redis.call('HDEL', stale, '')
			end
			skipped = skipped + skipped_now
		end
	end
	return ids, skipped
end

-- a paused queue hands out nothing; running jobs finish
local ids, skipped = {}, 0
if redis.call('EXISTS', paused) == 0 then
	ids, skipped = pop_ready(tonumber(ARGV[1]))
end
if #ids > 0 then
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
		redis.call('HSET', runs, unpack(lease_args))
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
end
-- more work is waiting: pass the wake-up on to another idle listener
if (#ids > 0 or skipped > 0) and redis.call('LLEN', ready) > 0 then
	signal()
end
result[2] = next_due(tonumber(ARGV[3]))
return result
