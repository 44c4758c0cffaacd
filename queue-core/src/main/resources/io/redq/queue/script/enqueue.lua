-- Enqueues a batch of jobs as one dispatch, a call that is harmless when re-sent (see remembered in common.lua).
-- KEYS: the queue's keys, then the call's lane key. ARGV: the call's sequence number and re-send window (ms), count,
-- then per job: id, due mode ('d' delay in ms or 'a' epoch ms), due value, duplicate policy, envelope body (the
-- envelope JSON without its opening brace: the script prepends the Redis-clock times). The policy's first character
-- says what happens to a pending job with the same id: 'k' keep it, 'r' replace its payload and due time, 'p' replace
-- its payload and keep its due time; a second character 'q' queues a dispatch that comes while the job runs as its
-- successor instead of dropping it. The policy 'n' marks a generated id, which no other job holds: it is not looked up.
-- Returns per job: 0 kept the pending job (or the successor already queued), 1 created, 2 replaced the pending job,
-- 3 queued as successor, 4 dropped (the job runs and the dispatch was not queued).
-- An ARGV after the jobs names the batch the jobs created are members of (see batch_member_done in common.lua).
-- The caller sends at most 1,000 jobs, which the variadic calls take (Lua's unpack stops at about 8,000 values).

-- Lettuce re-sends an unanswered command when it reconnects: the same dispatch again, which finds its reply
-- remembered and changes nothing, whatever happened to its jobs meanwhile (they may have run and completed).
local replied = remembered()
if replied then
	local replay = {}
	for i = 1, #replied do
		replay[i] = tonumber(string.sub(replied, i, i))
	end
	return replay
end
local now = now_millis()
local count = tonumber(ARGV[3])
-- members left by scripts from before levels come with stale counts, and the places of the jobs they took out of line
-- stay in levels (see forget_left_member): once per call
local left_behind = redis.call('EXISTS', stale, levels) > 0
local result = {}
-- the reply remembered for a re-send, one digit per job: Lua formats a number with sprintf, a string it only copies
local codes, digits = {}, {[0] = '0', '1', '2', '3', '4'}
local woke = false
-- A pending job replaced by a new dispatch starts afresh: without the attempts, stalls and error of a run before it,
-- without a successor queued then, whose payload is older than the new one, and without the token of a run before
-- it, whose late acknowledgement must not complete the new payload unrun (see runs in common.lua).
local function renew(id)
	redis.call('HDEL', attempts, id)
	redis.call('HDEL', stalls, id)
	redis.call('HDEL', errors, id)
	redis.call('HDEL', successors, id)
	redis.call('HDEL', runs, id)
end
-- jobs that are ready at once are stored, and pushed to the ready list or queued at their levels, with one variadic
-- call each (see queue_all in common.lua); a later job with the same id flushes them first, so that it sees them
local batch_jobs, batch_ready, batch_levels, batch_queued, batched = {}, {}, {}, {}, {}
local function flush()
	if #batch_jobs > 0 then
		redis.call('HSET', jobs, unpack(batch_jobs))
		if #batch_ready > 0 then
			redis.call('RPUSH', ready, unpack(batch_ready))
		end
		if #batch_levels > 0 then
			redis.call('HSET', levels, unpack(batch_levels))
			queue_all(batch_queued)
		end
		batch_jobs, batch_ready, batch_levels, batch_queued, batched = {}, {}, {}, {}, {}
		woke = true
	end
end
for i = 0, count - 1 do
	local base = 4 + i * 5
	local id, mode, value, policy, body = ARGV[base], ARGV[base + 1], tonumber(ARGV[base + 2]), ARGV[base + 3], ARGV[base + 4]
	-- a call of a C function costs more than Lua's own operations: most policies are one character
	local pending, while_running = policy, ''
	if #policy > 1 then
		pending, while_running = string.sub(policy, 1, 1), string.sub(policy, 2, 2)
	end
	local due = now + value
	if mode == 'a' then
		due = value
	end
	local status = 1
	local level, group = place_of_body(body)
	if batched[id] then
		flush()
	end
	if pending ~= 'n' and redis.call('HEXISTS', jobs, id) == 1 then
		-- a parked job is pending as a delayed one is
		local scheduled = due_of(id)
		if redis.call('ZSCORE', dead, id) then
			-- a dead job does not block its id: the new dispatch starts afresh
			drop(dead, id)
		elseif redis.call('ZSCORE', reserved, id) then
			status = 4
			if while_running == 'q' then
				status = 0
				local queued = redis.call('HGET', successors, id)
				if pending ~= 'k' or not queued then
					local successor_due = millis(due)
					if pending == 'p' and queued then
						-- only the payload changes: the queued run keeps the due time of the first dispatch
						successor_due = string.match(queued, '^(%-?%d+):') or successor_due
					end
					redis.call('HSET', successors, id, successor_due .. ':' .. body)
					status = 3
				end
			end
		elseif pending == 'k' then
			status = 0
		elseif pending == 'p' then
			-- only the payload changes: the job keeps its place, and the times it was created and became (or becomes)
			-- ready
			renew(id)
			local times = string.match(redis.call('HGET', jobs, id), '^({"createdAt":%-?%d+,"availableAt":%-?%d+,)')
			if times then
				redis.call('HSET', jobs, id, times .. body)
			else
				store(id, now, scheduled and tonumber(scheduled) or now, body)
			end
			if scheduled and left_behind then
				forget_left_member(id)
			end
			-- a new level or group moves a ready job to the end of its new line (see Priorities and groups in
			-- common.lua)
			if redis.call('HGET', levels, id) ~= (place(level, group) or false) then
				if not scheduled then
					unready(id)
				end
				set_place(id, level, group, true)
				if not scheduled then
					make_ready({id}, false)
					woke = true
				end
			end
			status = -2
		else
			-- a parked job leaves its gate's line, and a ready one woken for a place freed (not admitted yet) passes
			-- that place to the next in line: the new dispatch, whose gates may differ, starts afresh (see Gates in
			-- common.lua)
			leave_lines(id)
			if scheduled then
				redis.call('ZREM', delayed, id)
				-- a delayed job has no member of queued but one left by a script from before levels that
				-- rescheduled it, counted in the group of its old place
				if left_behind then
					forget_left_member(id)
				end
			else
				unready(id)
			end
			renew(id)
			-- the new dispatch's level and group are recorded as it is created
			redis.call('HDEL', levels, id)
			status = 2
		end
	end
	if status == 1 and pending ~= 'n' and left_behind then
		forget_left_member(id)
	end
	if (status == 1 or status == 2) and due <= now then
		batch_jobs[#batch_jobs + 1] = id
		batch_jobs[#batch_jobs + 1] = envelope(now, due, body)
		if level == DEFAULT_LEVEL and not group then
			batch_ready[#batch_ready + 1] = id
		else
			batch_levels[#batch_levels + 1] = id
			batch_levels[#batch_levels + 1] = place(level, group)
			batch_queued[#batch_queued + 1] = {id, level, group}
		end
		batched[id] = true
	elseif status == 1 or status == 2 then
		create(id, now, due, body)
	end
	if status < 0 then
		status = -status
	end
	result[i + 1] = status
	codes[i + 1] = digits[status]
end
flush()
local batch = ARGV[4 + count * 5]
if batch then
	local links = {}
	for i = 1, count do
		if result[i] == 1 then
			links[#links + 1] = ARGV[4 + (i - 1) * 5]
			links[#links + 1] = batch
		end
	end
	if #links > 0 then
		redis.call('HSET', batch_links, unpack(links))
	end
end
if woke then
	signal()
end
remember(table.concat(codes))
return result
