-- Reserves up to ARGV[1] ready jobs (none while the queue is paused) for ARGV[2] ms: each gets a fresh lease token,
-- '<sequence>:<attempt>', with one more attempt than it has used. ARGV[3]: the dead max age in ms (for the next due
-- time). ARGV[4]: the dead max size.
-- A reserved job's earlier run is taken out of runs (see ack.lua): a container reserves only what its workers start
-- within about 100 ms, and starts them on this lease without another call, so that a late acknowledgement of an
-- earlier run is refused from the moment another worker may run the job.
-- An id whose envelope is missing from the jobs hash (deleted outside Redq) has nothing to run: it is recorded dead
-- with the reason, so that an operator finds it, and returned for the caller to log.
-- Returns {now, next due (-1 for none), the number M of ids without data, then per job: id, envelope, attempt, token,
-- then the M ids without data}.
-- Entries of the ready list and members of queued counted stale (see unready in common.lua) are skipped, at most
-- MAX_SKIPPED per call, so that a call may hand out fewer jobs than asked; a queue that has none pays one EXISTS per
-- batch.
-- Levels (see Priorities in common.lua): a queue whose queued set is empty pays one EXISTS per call for them and
-- takes its jobs from the ready list as before. Otherwise each job of the call goes to a level that has jobs by
-- stride scheduling (see pop_levels), level L weighing 2^L: while a set of levels has jobs, each gets its weight's
-- share of every W reservations (W the sum of their weights; levels 9 and 5: 16 of every 17 go to 9), so that a higher
-- level is served first and faster, and a level with jobs is reserved within floor(W / 2^L) + b reservations, b the
-- number of lower levels with jobs, however levels come and go (W and b counting every level that had jobs meanwhile).
-- The passes are kept in fair across calls, so that the shares hold between calls of one job each.
-- Within a level, jobs are taken in slot order, which takes the groups that have jobs in turn (see Priorities and
-- groups in common.lua); at the default level the ready list takes its turn as one more group.
local MAX_SKIPPED = 1000
-- The value of the leases hash's field '' (no id is empty), written with each batch of leases: Redis keeps a hash of
-- at most 128 fields of at most 64 bytes as a listpack, which every lookup searches entry by entry, and leases holds
-- about what a container reserves ahead and runs, right in that range; a longer value keeps it a hash table.
local KEEP_HASH_TABLE = 'a value longer than 64 bytes, so that Redis keeps this hash a hash table (see reserve.lua)'
local now = now_millis()
local result = {now, 0, 0}
local missing = {}

-- The ids of popped entries that are not counted stale, and how many were skipped; the counts skipped are taken off.
local function live(popped)
	if redis.call('EXISTS', stale) == 0 then
		return popped, 0
	end
	local counts = redis.call('HMGET', stale, unpack(popped))
	local ids, left, skipped = {}, {}, 0
	for i, id in ipairs(popped) do
		left[id] = left[id] or tonumber(counts[i]) or 0
		if left[id] > 0 then
			left[id] = left[id] - 1
			skipped = skipped + 1
			if left[id] == 0 then
				redis.call('HDEL', stale, id)
			else
				redis.call('HSET', stale, id, left[id])
			end
		else
			ids[#ids + 1] = id
		end
	end
	if skipped > 0 and redis.call('HINCRBY', stale, '', -skipped) <= 0 then
		redis.call('HDEL', stale, '')
	end
	return ids, skipped
end

-- Pops up to wanted live entries of the ready list into ids.
local function pop_ready(wanted, ids)
	local skipped = 0
	local goal = #ids + wanted
	while #ids < goal and skipped < MAX_SKIPPED do
		local popped = redis.call('LPOP', ready, goal - #ids)
		if not popped then
			break
		end
		local alive, skipped_now = live(popped)
		for _, id in ipairs(alive) do
			ids[#ids + 1] = id
		end
		skipped = skipped + skipped_now
	end
	return skipped
end

-- Pops up to wanted live members of a level's band of queued into ids, in slot order, records the band's round and
-- counts the popped members out of their groups.
local function pop_band(level, wanted, ids)
	local low, high = band(level)
	local skipped = 0
	local goal = #ids + wanted
	while #ids < goal and skipped < MAX_SKIPPED do
		local popped = redis.call('ZRANGE', queued, low, high, 'BYSCORE', 'LIMIT', 0, goal - #ids, 'WITHSCORES')
		if #popped == 0 then
			break
		end
		local members = {}
		for i = 1, #popped, 2 do
			members[#members + 1] = popped[i]
		end
		redis.call('ZREM', queued, unpack(members))
		redis.call('HSET', fair, 'r' .. level, millis(tonumber(popped[#popped]) - (HIGHEST - level) * BAND))
		local left = {}
		for _, kept in ipairs(redis.call('HMGET', levels, unpack(members))) do
			local _, group = place_of(kept)
			if group then
				left[group] = (left[group] or 0) + 1
			end
		end
		for group, n in pairs(left) do
			leave_group(level, group, n)
		end
		-- a member whose id has stale entries is the job's live entry while the job is ready (the stale ones are in
		-- the ready list: the job moved to another level while ready), else one of them (see Priorities in common.lua)
		local counts = (redis.call('EXISTS', stale) == 1) and redis.call('HMGET', stale, unpack(members)) or {}
		for i, id in ipairs(members) do
			if not counts[i] or is_ready(id) then
				ids[#ids + 1] = id
			else
				unstale(id, 1)
				skipped = skipped + 1
			end
		end
	end
	return skipped
end

-- Smooth weighted round-robin: gives each of wanted picks to the key (of keys, in order of precedence) that has items
-- left and whose current weight, raised by its weight, is the highest, then lowers that one by the total weight of
-- the keys in the pick. Over a run of picks, each key that has items gets its weight's share, spread evenly. Updates
-- current; returns the picks per key.
local function share(keys, weight, has, current, wanted)
	local take = {}
	for _, key in ipairs(keys) do
		take[key] = 0
	end
	for _ = 1, wanted do
		local total, best = 0, nil
		for _, key in ipairs(keys) do
			if has[key] > take[key] then
				total = total + weight[key]
				current[key] = current[key] + weight[key]
				if not best or current[key] > current[best] then
					best = key
				end
			end
		end
		if not best then
			break
		end
		current[best] = current[best] - total
		take[best] = take[best] + 1
	end
	return take
end

-- Pops up to wanted jobs of the default level into ids: from the ready list (jobs without a group) and its band of
-- queued (jobs in groups), the list taking its turn as one more group.
local function pop_default(wanted, ids)
	local has = {l = redis.call('LLEN', ready), q = redis.call('ZCOUNT', queued, band(DEFAULT_LEVEL))}
	if has.q == 0 then
		return pop_ready(wanted, ids)
	end
	local kept = redis.call('HMGET', fair, 'wl', 'wq', 'c' .. DEFAULT_LEVEL)
	local current = {l = tonumber(kept[1]) or 0, q = tonumber(kept[2]) or 0}
	local take = share({'q', 'l'}, {l = 1, q = math.max(1, tonumber(kept[3]) or 1)}, has, current, wanted)
	redis.call('HSET', fair, 'wl', current.l, 'wq', current.q)
	return pop_band(DEFAULT_LEVEL, take.q, ids) + pop_ready(take.l, ids)
end

-- The pass a level advances by per reservation (stride scheduling): the inverse of its weight 2^L, scaled so that
-- every stride, and half of it, is a whole number (level 9: 2, level 0: 1024).
local function stride(level)
	return 2 ^ (HIGHEST + 1 - level)
end

-- Pops up to wanted jobs across the levels that have jobs, into ids, by stride scheduling: each reservation goes to
-- the level with jobs whose pass is the lowest (the higher level on a tie), and advances that level's pass by its
-- stride. Each level's pass is kept in fair ('p<L>') relative to the pass of the latest reservation, the queue's
-- virtual time, which every level with jobs has reached or passed. A level that has no jobs keeps its pass, but at
-- least half its stride ahead, where it starts when it has jobs again: a level gets no more than its share by coming
-- and going, and no less, and while it has jobs, its pass is at most one stride ahead. So a level L with jobs waits
-- for at most A / 2^L reservations of higher levels (A the sum of their weights, counting every level that had jobs
-- meanwhile) and one of each lower level, whatever comes and goes (see "The ordering and starvation rule" in the
-- priorities page).
local function pop_levels(wanted, ids)
	local has, pass, fields = {}, {}, {}
	for level = HIGHEST, LOWEST, -1 do
		has[level] = redis.call('ZCOUNT', queued, band(level))
		fields[#fields + 1] = 'p' .. level
	end
	has[DEFAULT_LEVEL] = has[DEFAULT_LEVEL] + redis.call('LLEN', ready)
	local kept = redis.call('HMGET', fair, unpack(fields))
	local take = {}
	for level = HIGHEST, LOWEST, -1 do
		pass[level] = tonumber(kept[HIGHEST + 1 - level]) or stride(level) / 2
		take[level] = 0
	end
	for _ = 1, wanted do
		local best
		for level = HIGHEST, LOWEST, -1 do
			if has[level] > take[level] and (not best or pass[level] < pass[best]) then
				best = level
			end
		end
		if not best then
			break
		end
		pass[best] = pass[best] + stride(best)
		take[best] = take[best] + 1
	end
	-- the virtual time: the pass of the latest reservation
	local skipped, virtual_time = 0, 0
	for level = HIGHEST, LOWEST, -1 do
		if take[level] > 0 then
			local before = #ids
			if level == DEFAULT_LEVEL then
				skipped = skipped + pop_default(take[level], ids)
			else
				skipped = skipped + pop_band(level, take[level], ids)
			end
			-- the reservations that stale entries left out (the level ran out of jobs) are given back
			local got = #ids - before
			pass[level] = pass[level] - (take[level] - got) * stride(level)
			if got > 0 then
				virtual_time = math.max(virtual_time, pass[level] - stride(level))
			end
		end
	end
	local state = {}
	for level = HIGHEST, LOWEST, -1 do
		local relative = pass[level] - virtual_time
		state[#state + 1] = 'p' .. level
		if has[level] > take[level] then
			state[#state + 1] = math.max(relative, 0)
		else
			state[#state + 1] = math.max(relative, stride(level) / 2)
		end
	end
	redis.call('HSET', fair, unpack(state))
	return skipped
end

-- a paused queue hands out nothing; running jobs finish
local ids, skipped = {}, 0
local any_queued = false
if redis.call('EXISTS', paused) == 0 then
	any_queued = redis.call('EXISTS', queued) == 1
	local wanted = tonumber(ARGV[1])
	if not any_queued then
		skipped = pop_ready(wanted, ids)
	else
		-- the shares are drawn again for the jobs that stale entries left out
		repeat
			local skipped_now = pop_levels(wanted - #ids, ids)
			skipped = skipped + skipped_now
		until #ids >= wanted or skipped_now == 0 or skipped >= MAX_SKIPPED
	end
end
if #ids > 0 then
	-- as a string, so that Redis does not format the number once per job
	local expiry = millis(now + tonumber(ARGV[2]))
	local sequence_number = redis.call('INCRBY', sequence, #ids) - #ids
	remove_present('HDEL', runs, unpack(ids))
	local envelopes = redis.call('HMGET', jobs, unpack(ids))
	-- only jobs that ran before and are not running have attempts there: mostly none
	local counts = (redis.call('EXISTS', attempts) == 1) and redis.call('HMGET', attempts, unpack(ids)) or {}
	local lease_args, reserved_args, retried = {}, {}, {}
	for i, id in ipairs(ids) do
		if envelopes[i] then
			sequence_number = sequence_number + 1
			local attempt = 1
			if counts[i] then
				attempt = (tonumber(counts[i]) or 0) + 1
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
		redis.call('HSET', leases, '', KEEP_HASH_TABLE, unpack(lease_args))
		redis.call('ZADD', reserved, '+inf', RESERVED_END, unpack(reserved_args))
	end
	-- a running job's attempts are in its lease
	if #retried > 0 then
		redis.call('HDEL', attempts, unpack(retried))
	end
	for _, id in ipairs(missing) do
		redis.call('HSET', errors, id,
			'Missing job data: the id was ready, but the jobs hash held no envelope for it (deleted outside Redq?)')
		bury(id, now, tonumber(ARGV[4]), tonumber(ARGV[3]))
		result[#result + 1] = id
	end
	if #missing > 0 then
		count_finished(0, #missing, #missing, now)
	end
	result[3] = #missing
end
-- more work is waiting: pass the wake-up on to another idle listener
if (#ids > 0 or skipped > 0) and (redis.call('LLEN', ready) > 0 or (any_queued and redis.call('EXISTS', queued) == 1)) then
	signal()
end
result[2] = next_due(tonumber(ARGV[3]))
return result
