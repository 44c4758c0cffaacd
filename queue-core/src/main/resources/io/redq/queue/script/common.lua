-- Shared by every Redq script (prepended when the script is loaded).
-- Every key of one queue shares the hash tag {<queue>}, and every key is passed in KEYS in this order.
-- started: the ids whose current run was confirmed started by a lease renewal (extend.lua); stalls: id -> how many
-- times its lease expired before its run was confirmed (migrate.lua); stale: id -> how many of the ready list's entries
-- of that id stand for nothing any more, and '' (no id is empty) -> their total (see unready); runs: id -> the lease
-- token of its latest run, recorded when that run's lease ended without its result (see end_lease) and deleted when
-- another run of the job is reserved, so that ack.lua accepts that run when it finishes late while no worker reserved
-- its job since (a run's own lease says so while it holds it, and keeping the hot runs hash empty spares every
-- reservation a search of it); stats: the statistics series (see count_finished); traces:
-- id -> the stack trace of the failure fail.lua recorded last (bounded by the client), shown while errors holds it;
-- queued, levels and fair: the ready jobs of priority levels other than the default, or in groups (see "Priorities
-- and groups" below); lines, parked, holding and held: the jobs waiting for a gate and the runs holding gates (see
-- "Gates" below); batch_links and handover: the links of batch members to their batches and the completions to hand
-- over to them (see batch_member_done); waiting: see announce. One unpack, where thirty KEYS[i] would cost every call
-- thirty global lookups.
local ready, delayed, reserved, dead, jobs, attempts, leases, errors, wake, sequence, successors, paused, completed,
	model, started, stalls, stale, runs, stats, traces, queued, levels, fair, lines, parked, holding, held, batch_links,
	handover, waiting =
	unpack(KEYS, 1, 30)

-- The data model these scripts read and write: the queue's keys and what their values mean. Bump it with every change
-- to either, and add the step up from the model before to the upgrade below, so that no script misreads another
-- model's data. The one place the number is kept: Java learns it from the model script.
local MODEL = 7

-- The member of reserved past every lease, '+inf' (data model 6): 92 bytes, longer than zset-max-listpack-value, and
-- first in each ZADD that may create the set, so that Redis makes reserved a skiplist from its first job (it picks a
-- new set's encoding by the first member of the ZADD, 6.2, or its longest, 7.0 on, and never turns a skiplist back). A listpack of the tens of
-- runs a shard holds costs every insert a scan from its start. A job whose id were this very string would be misread
-- (generated ids never are). Counts and listings of reserved stop below +inf; the migrator deletes the set when the
-- member is left alone.
local RESERVED_END = '\n' .. string.rep('~', 91)

-- The queue's data model and the value of the last key, read in one call since each costs a call of its own: a call
-- made on a lane (see remembered) finds its lane's latest reply there; for any other script the last key holds what
-- it reads anyway, or is no string, which MGET reads as nil. Nothing writes either key before the script reads them.
local stored_model, last_key_value = unpack(redis.call('MGET', model, KEYS[#KEYS]))

-- The Redis clock in milliseconds: every time a script records or compares comes from here, never from a client. Read
-- once per call: a script runs at one instant, and a call that acknowledges, leaves gates and hands a job over would
-- otherwise ask three times.
local clock
local function now_millis()
	if not clock then
		local time = redis.call('TIME')
		clock = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
	end
	return clock
end

-- Epoch milliseconds as digits: Lua writes numbers of 15 digits and more (due times after the year 5138, scores of queued) in
-- exponent form when concatenating. The latest is kept, since a script often writes one time for many jobs, and
-- formatting is sprintf.
local formatted_value, formatted
local function millis(value)
	if value ~= formatted_value then
		formatted_value, formatted = value, string.format('%d', value)
	end
	return formatted
end

-- Wakes one idle listener (blocked in BZPOPMIN on the wake key). A single member, so signalling is idempotent.
local function signal()
	redis.call('ZADD', wake, 0, 'w')
end

-- A call that changes a queue is made harmless when Lettuce re-sends it after a reconnect (see ResendProtection): it
-- runs on a lane of its producer that no other call takes until it has its reply, whose key comes last in KEYS, and
-- its first two ARGV are its sequence number and the re-send window in ms. The lane's key holds '<sequence>:<reply>'
-- of its latest call. Returns the reply remembered for this call, or nil for a call not seen before.
local function remembered()
	local last = last_key_value
	if last then
		local colon = string.find(last, ':', 1, true)
		if string.sub(last, 1, colon - 1) == ARGV[1] then
			return string.sub(last, colon + 1)
		end
	end
	return nil
end

-- Remembers this call's reply (a string: Lua formats a number with sprintf) on its lane, for the window; returns it.
local function remember(reply)
	redis.call('SET', KEYS[#KEYS], ARGV[1] .. ':' .. reply, 'PX', ARGV[2])
	return reply
end

-- Priorities and groups. A job has a level from LOWEST to HIGHEST; a higher level is reserved first (see reserve.lua
-- for the shares that bound starvation), equal levels in the order they became ready. A job may also name a group (a
-- tenant, say): within a level, the groups that have ready jobs take turns, so that one group's backlog delays another
-- group's job by about one job per group that has jobs.
-- A ready job of the default level and no group is an entry of the ready list, as before levels existed, so that a
-- queue that uses neither pays nothing for them. Any other ready job is a member of the queued sorted set, scored by
-- its level's band plus its slot in that band: ((HIGHEST - level) * BAND + slot), so that the lowest score is the
-- next job of the highest level and a level's jobs are one score range (found in O(log n), never scanned). The
-- slots order a level's jobs: jobs without a group take the next slot of the level's counter, so they stay in order;
-- a group's job takes max(round, its group's last slot) + 1, where the round is the slot of the level's latest
-- reservation, so that the n-th job of every group that has jobs shares a slot with the others' n-th: reserving in
-- slot order takes the groups in turn, and a group that comes (or comes back) starts at the round, not behind another
-- group's backlog.
-- The levels hash keeps '<level>' or '<level> <group>' of every job not at the default level or in a group while the
-- job lives (ready, delayed, reserved or dead), so that a job that comes back (due, retried, expired, released,
-- woken, revived) is ready at its level and in its group again; a queue without such jobs has no levels hash, which
-- each call that makes jobs ready checks once. The fair hash keeps per level L the last slot of jobs without a group
-- ('n<L>'), the round ('r<L>': a job handed back goes there, at the head), the level's pass in the reservations
-- ('p<L>', see reserve.lua; scripts before stride scheduling kept a weight 'w<L>' instead, which each release leaves
-- to the other, so that a mixed pair shares levels as either would, give or take a few reservations), per group G with ready jobs at L its last slot and how many ready jobs it has
-- ('g<L>:<G>' -> '<slot> <count>', deleted with its last ready job, so that a group without jobs leaves nothing), and
-- how many groups have ready jobs at L ('c<L>'). At the default level, the ready list takes turns with the groups as
-- one more group (see reserve.lua).
-- Scripts from before levels (model 4 as first released to instances) see only the ready list: they leave the queued
-- jobs to reserve for scripts that know them, and when they take such a job out of line (cancel, reschedule, replace)
-- they count one of its entries stale (unready), which is then its member of queued: the stale counts cover the
-- entries of both, and reserving skips a member of queued as it skips an entry of the ready list.
local LOWEST, DEFAULT_LEVEL, HIGHEST = 0, 5, 9
local BAND = 17592186044416

-- The level a dispatch body asks for: its first field '"priority":<level>' when it has one, else the default level;
-- and its group: the field '"group":"<name>"' right after (or first), or nil.
local function place_of_body(body)
	-- most bodies start with neither field ('"job":...'): their second byte says so, cheaper than a match
	local second = string.byte(body, 2)
	if second ~= 112 and second ~= 103 then
		return DEFAULT_LEVEL, nil
	end
	local level = tonumber(string.match(body, '^"priority":(%d+),')) or DEFAULT_LEVEL
	local group = string.match(body, '^"priority":%d+,"group":"([^"]+)",') or string.match(body, '^"group":"([^"]+)",')
	return level, group
end

-- A job's level and group (or nil) as the levels hash keeps them; the default level for none.
local function place_of(kept)
	local level, group = string.match(kept or '', '^(%d+) ?(.*)$')
	if not level then
		return DEFAULT_LEVEL, nil
	end
	return tonumber(level), (group ~= '') and group or nil
end

-- The score range of a level's band in queued, as ZRANGE BYSCORE arguments.
local function band(level)
	local low = (HIGHEST - level) * BAND
	return millis(low), '(' .. millis(low + BAND)
end

-- Counts one stale entry of a job less (one was reserved past or replaced); deletes counts that reach 0.
local function unstale(id, n)
	local left = redis.call('HINCRBY', stale, id, -n)
	if left <= 0 then
		redis.call('HDEL', stale, id)
	end
	if redis.call('HINCRBY', stale, '', -n) <= 0 then
		redis.call('HDEL', stale, '')
	end
end

-- Counts n ready jobs of a group at a level less; a group without ready jobs is forgotten.
local function leave_group(level, group, n)
	local field = 'g' .. level .. ':' .. group
	local last, count = string.match(redis.call('HGET', fair, field) or '', '^(%d+) (%d+)$')
	if not count then
		return
	end
	if tonumber(count) <= n then
		redis.call('HDEL', fair, field)
		if redis.call('HINCRBY', fair, 'c' .. level, -1) <= 0 then
			redis.call('HDEL', fair, 'c' .. level)
		end
	else
		redis.call('HSET', fair, field, last .. ' ' .. (tonumber(count) - n))
	end
end

-- Puts a ready job into queued, in its group when it has one: at the end of its line, or at the head of its level
-- (handed back: the round).
local function queue_at(id, level, at_head, group)
	local slot
	if group then
		local field = 'g' .. level .. ':' .. group
		local kept = redis.call('HMGET', fair, field, 'r' .. level)
		local last, count = string.match(kept[1] or '', '^(%d+) (%d+)$')
		local round = tonumber(kept[2]) or 0
		last = tonumber(last) or 0
		slot = at_head and round or math.max(round, last) + 1
		if not count then
			redis.call('HINCRBY', fair, 'c' .. level, 1)
		end
		redis.call('HSET', fair, field, millis(math.max(slot, last)) .. ' ' .. ((tonumber(count) or 0) + 1))
	elseif at_head then
		slot = tonumber(redis.call('HGET', fair, 'r' .. level)) or 0
	else
		local last = redis.call('HMGET', fair, 'n' .. level, 'r' .. level)
		slot = math.max(tonumber(last[1]) or 0, tonumber(last[2]) or 0) + 1
		redis.call('HSET', fair, 'n' .. level, slot)
	end
	if redis.call('ZADD', queued, millis((HIGHEST - level) * BAND + slot), id) == 0
			and redis.call('HEXISTS', stale, id) == 1 then
		-- the member left by a job that a script from before levels took out of line (rescheduled), counted stale
		-- and still counted in its group, which is the job's (levels keeps it), is replaced
		unstale(id, 1)
		if group then
			leave_group(level, group, 1)
		end
	end
end

-- Before a new job is stored at an id that has none: a job that a script from before levels cancelled or replaced
-- left its member of queued (if it was ready), counted stale and counted in its group, and its place in levels (those
-- scripts know neither). The member goes, out of its group, and the place with it, so that the new job inherits
-- neither. Called while stale counts or places exist only.
local function forget_left_member(id)
	if redis.call('ZREM', queued, id) == 1 then
		local level, group = place_of(redis.call('HGET', levels, id))
		if group then
			leave_group(level, group, 1)
		end
		unstale(id, 1)
	end
	redis.call('HDEL', levels, id)
end

-- Queues jobs at the end of their lines, in order, each {id, level, group}: the state of each line is read and
-- written once and the members are added with one ZADD, so that a batch costs a few calls per line rather than per
-- job. While stale counts exist, one by one instead, since a member a script from before levels counted stale may be
-- among those replaced (see queue_at).
local function queue_all(entries)
	if redis.call('EXISTS', stale) == 1 then
		for _, entry in ipairs(entries) do
			queue_at(entry[1], entry[2], false, entry[3])
		end
		return
	end
	local lines, order, members = {}, {}, {}
	for _, entry in ipairs(entries) do
		local id, level, group = entry[1], entry[2], entry[3]
		local field = group and ('g' .. level .. ':' .. group) or ('n' .. level)
		local line = lines[field]
		if not line then
			local kept = redis.call('HMGET', fair, field, 'r' .. level)
			local last, count = kept[1], nil
			if group then
				last, count = string.match(kept[1] or '', '^(%d+) (%d+)$')
			end
			line = {field = field, level = level, group = group, count = tonumber(count), added = 0,
				last = math.max(tonumber(last) or 0, tonumber(kept[2]) or 0)}
			lines[field] = line
			order[#order + 1] = line
		end
		line.last = line.last + 1
		line.added = line.added + 1
		members[#members + 1] = millis((HIGHEST - level) * BAND + line.last)
		members[#members + 1] = id
	end
	local state = {}
	for _, line in ipairs(order) do
		state[#state + 1] = line.field
		if line.group then
			if not line.count then
				redis.call('HINCRBY', fair, 'c' .. line.level, 1)
			end
			state[#state + 1] = millis(line.last) .. ' ' .. ((line.count or 0) + line.added)
		else
			state[#state + 1] = millis(line.last)
		end
	end
	redis.call('HSET', fair, unpack(state))
	redis.call('ZADD', queued, unpack(members))
end

-- Makes jobs ready at their levels: ids of the default level without a group are pushed to the ready list (at its
-- head for jobs handed back, else at its end), the others queued. One EXISTS when no job has a level or group.
local function make_ready(ids, at_head)
	local plain = ids
	if redis.call('EXISTS', levels) == 1 then
		plain = {}
		local found = redis.call('HMGET', levels, unpack(ids))
		for i, id in ipairs(ids) do
			local level, group = place_of(found[i])
			if level ~= DEFAULT_LEVEL or group then
				queue_at(id, level, at_head, group)
			else
				plain[#plain + 1] = id
			end
		end
	end
	if #plain > 0 then
		redis.call(at_head and 'LPUSH' or 'RPUSH', ready, unpack(plain))
	end
end

-- Whether a job is parked behind a gate: its record in parked names an entry still in its gate's line (a woken job
-- keeps its record, out of line, until its admission; see Gates below).
local function is_parked(id)
	local entry = redis.call('HGET', parked, id)
	return entry and redis.call('ZSCORE', lines, entry) ~= false
end

-- A pending job's due time as ZSCORE gives it: its score in delayed, 'inf' for a parked job, false for any other.
local function due_of(id)
	local due = redis.call('ZSCORE', delayed, id)
	if not due and is_parked(id) then
		return 'inf'
	end
	return due
end

-- Whether a job is ready: it has data and is in none of delayed, reserved and dead, and not parked. Its entry in the
-- ready list is not searched for (see unready).
local function is_ready(id)
	return redis.call('HEXISTS', jobs, id) == 1 and not redis.call('ZSCORE', delayed, id)
		and not redis.call('ZSCORE', reserved, id) and not redis.call('ZSCORE', dead, id) and not is_parked(id)
end

-- Takes a ready job out of line without searching the ready list (LREM costs time in proportion to a backlog): a
-- member of queued is removed (and counted out of its group), else one entry of its id in the ready list is counted
-- stale, and reserve skips as many entries of the id as are counted (reserve.lua). The caller then moves the job
-- elsewhere, or forgets it. Which entry is skipped does not matter: each entry of an id stands for the one job of that
-- id, and a job that is ready again is reserved at the last of its entries.
local function unready(id)
	if redis.call('ZREM', queued, id) == 0 then
		redis.call('HINCRBY', stale, id, 1)
		redis.call('HINCRBY', stale, '', 1)
		return
	end
	local level, group = place_of(redis.call('HGET', levels, id))
	if group then
		leave_group(level, group, 1)
	end
end

-- The number of ready jobs: the entries of the ready list and queued less the stale ones.
local function ready_count()
	return redis.call('LLEN', ready) + redis.call('ZCARD', queued) - (tonumber(redis.call('HGET', stale, '')) or 0)
end

-- Keeps a key at least ms longer (PEXPIRE never shortens it here): a gate a crashed holder left goes with its key.
local function expire_after(key, ms)
	if redis.call('PTTL', key) < ms then
		redis.call('PEXPIRE', key, ms)
	end
end

-- Puts a job into the delayed set; wakes a listener when it became the earliest, so that its migrator reschedules.
local function schedule(id, due)
	redis.call('ZADD', delayed, due, id)
	local head = redis.call('ZRANGE', delayed, 0, 0)
	if head[1] == id then
		signal()
	end
end

-- Deletes fields of a hash (HDEL) or members of a set (SREM) that is often missing: Redis converts every argument of a
-- call even for a missing key, which costs more than asking whether the key exists.
local function remove_present(command, key, ...)
	if redis.call('EXISTS', key) == 1 then
		redis.call(command, key, ...)
	end
end

-- Gates. A job stopped by a taken exclusive key or a full running set (admit.lua) is parked: it waits in its gate's
-- line, in no other set (data model 7: before, it waited in delayed too, at +inf), so that the migrator never moves it
-- and no call reads it again, until a run leaves the gate (hold.lua) or a holder's lease expires (migrate.lua), which
-- wake as many of the line's first jobs as places they freed. The lines of every gate of a queue are one sorted set,
-- all scores 0, of '<gate>\0<arrival>\0<id>' (gate: the key of the running set or exclusive key it waits for; arrival:
-- 16 digits of the sequence), so that a gate's line is a range found in O(log n) and every key stays in KEYS; parked
-- keeps id -> its entry there while it has one, and after it was woken until it is admitted, so that a woken job that
-- finds the place taken again (a job admitted between its waking and its admission) takes its old place in line, and
-- a cancelled one leaves its line: a job is parked while its record's entry is in lines. holding keeps
-- '<id>:<token>' of each run that holds gates -> when its hold ends unless renewed, and held the gates it holds,
-- '\0'-separated, so that the migrator wakes the lines of a holder that never left. A job stopped by the rate limit is
-- not parked: it comes back at its place in time (admit.lua).

-- The field of parked (no id is empty) that says a queue upgraded from model 6 may still keep parked jobs in delayed at
-- +inf: the migrator takes them out a batch a pass and then deletes it (see migrate.lua), and until then a woken job
-- leaves delayed too. Counts and listings of delayed stop below +inf meanwhile.
local LEFT_IN_DELAYED = ''

-- The records in parked of the given ids, and whether parked jobs of model 6 may still be in delayed, in one call.
local function parked_records(ids)
	local records = redis.call('HMGET', parked, LEFT_IN_DELAYED, unpack(ids))
	local left_in_delayed = table.remove(records, 1) ~= false
	return records, left_in_delayed
end

-- The id of an entry of a gate's line: what follows its arrival, found by position (a pattern that searches the entry
-- for it costs ten times as much, once for every job a drain wakes). Ids hold no NUL; a gate may (an exclusive key is
-- the application's), and a caller that cut such a gate short at its NUL gets the id after the entry's last NUL.
local function id_in_line(entry, gate)
	local id = string.sub(entry, #gate + 19)
	if string.find(id, '\0', 1, true) then
		return string.match(entry, '%z([^%z]*)$')
	end
	return id
end

-- Takes up to n of a gate's first parked jobs out of its line, in line order, and returns their ids; the caller makes
-- them ready or reserves them. Each keeps its record in parked until its admission (see Gates). An entry whose job no
-- longer has it (replaced meanwhile) is dropped; at most 100 entries are read per call.
local function unpark(gate, n)
	local low, high = '(' .. gate .. '\0', '(' .. gate .. '\1'
	local woken = {}
	local left_in_delayed = false
	local entries = redis.call('ZRANGEBYLEX', lines, low, high, 'LIMIT', 0, n)
	local read = #entries
	while #entries > 0 do
		redis.call('ZREM', lines, unpack(entries))
		local ids = {}
		for i, entry in ipairs(entries) do
			ids[i] = id_in_line(entry, gate)
		end
		local records
		records, left_in_delayed = parked_records(ids)
		for i, id in ipairs(ids) do
			if records[i] == entries[i] then
				woken[#woken + 1] = id
			end
		end
		if #woken >= n or read >= 100 then
			break
		end
		entries = redis.call('ZRANGEBYLEX', lines, low, high, 'LIMIT', 0, math.min(n - #woken, 100 - read))
		read = read + #entries
	end
	if left_in_delayed and #woken > 0 then
		redis.call('ZREM', delayed, unpack(woken))
	end
	return woken
end

-- Wakes up to n of a gate's first parked jobs, in line order, at the head of their levels' lines.
local function wake_line(gate, n)
	local woken = unpark(gate, n)
	if #woken > 0 then
		-- pushed to the heads in reverse, so that the first in line comes first
		local reversed = {}
		for i = #woken, 1, -1 do
			reversed[#reversed + 1] = woken[i]
		end
		make_ready(reversed, true)
		signal()
	end
	return #woken
end

-- Whether a running set with room for max holders (0: no limit) is full for a holder it does not count; its holders
-- whose lease expired go first.
local function running_full(running, max, holder, now)
	if max <= 0 then
		return false
	end
	redis.call('ZREMRANGEBYSCORE', running, '-inf', now)
	return redis.call('ZCARD', running) >= max and not redis.call('ZSCORE', running, holder)
end

-- Lets a reserved run through its gates for lease ms (admit.lua, or a hand-over in hold.lua): its lease becomes that
-- lease, it takes the exclusive key (nil for none) and a place in each running set given as {key, max} (max 0: no
-- limit), and it is recorded holding them (holding, held). A woken job admitted where its running set has room left
-- wakes the next in its line, so that places freed without a run leaving (a raised limit, a holder's expired lease)
-- fill one admission after another.
local function pass_gates(id, holder, now, lease, exclusive, running)
	-- the run is reserved (its caller holds its lease, or reserves it in the same call and leaves the score to this)
	redis.call('ZADD', reserved, 'GT', '+inf', RESERVED_END, now + lease, id)
	local gates = {}
	if exclusive then
		redis.call('SET', exclusive, holder, 'PX', lease)
		gates[1] = exclusive
	end
	-- a running set expires with the last lease it counts, so that entries of holders that crashed do not stay forever
	for _, set in ipairs(running) do
		if set[2] > 0 then
			redis.call('ZADD', set[1], now + lease, holder)
			expire_after(set[1], lease)
			gates[#gates + 1] = set[1]
		end
	end
	if #gates > 0 then
		redis.call('ZADD', holding, now + lease, holder)
		redis.call('HSET', held, holder, table.concat(gates, '\0'))
	end
	local entry = redis.call('HGET', parked, id)
	if entry then
		redis.call('HDEL', parked, id)
		-- the next in the line it was woken from is woken unless this run took a place there and filled the gate: a
		-- run that takes none (its limit lifted, its gates changed by a new payload) would otherwise keep it from them
		local gate = string.match(entry, '^([^%z]*)%z')
		local wake = gate ~= exclusive
		for _, set in ipairs(running) do
			if gate == set[1] and set[2] > 0 then
				wake = redis.call('ZCARD', gate) < set[2]
			end
		end
		if wake then
			wake_line(gate, 1)
		end
	end
end

-- Whether a job's envelope goes on after its times and level as given ('"group":<group>,"job":<job>,' or
-- '"job":<job>,' as JobEnvelope writes them): the same job and group, and so the same gates, as a leaver's.
local function has_gates(envelope, same_gates)
	local _, times = string.find(envelope, '^{"createdAt":%-?%d+,"availableAt":%-?%d+,')
	if not times then
		return false
	end
	local _, level = string.find(envelope, '^"priority":%d+,', times + 1)
	local from = (level or times) + 1
	return string.sub(envelope, from, from + #same_gates - 1) == same_gates
end

-- A run: up to n of the jobs parked first in a gate's line, in line order, join the job just handed over past the gates
-- it left (hold.lua), as long as each has those gates (same_gates, see has_gates). They are reserved for the same worker
-- with the same lease, and added to handed as {id, envelope, attempt, token} each, and take no place of their own: the
-- worker runs them one after another under the place the first took, whose holder stays the first's run, and the last
-- leaves it. A job that joined and is not run (its worker died or stopped) comes back as a reserved job does: by its
-- lease or handed back, while the place frees as its holder leaves it or its hold expires.
local function join_run(handed, gate, n, same_gates, now, lease)
	if n <= 0 or not gate then
		return
	end
	local entries = redis.call('ZRANGEBYLEX', lines, '(' .. gate .. '\0', '(' .. gate .. '\1', 'LIMIT', 0, n)
	if #entries == 0 then
		return
	end
	local ids = {}
	for i, entry in ipairs(entries) do
		ids[i] = id_in_line(entry, gate)
	end
	local envelopes = redis.call('HMGET', jobs, unpack(ids))
	-- whether each is still parked, read for them all at once
	local records, left_in_delayed = parked_records(ids)
	local joined, left = {}, {}
	for i, id in ipairs(ids) do
		-- the run ends at the first that is not parked (an entry left behind) or has other gates, which keep their places
		if not envelopes[i] or not has_gates(envelopes[i], same_gates) or records[i] ~= entries[i] then
			break
		end
		joined[i], left[i] = id, entries[i]
	end
	if #joined == 0 then
		return
	end
	redis.call('ZREM', lines, unpack(left))
	if left_in_delayed then
		redis.call('ZREM', delayed, unpack(joined))
	end
	redis.call('HDEL', parked, unpack(joined))
	remove_present('HDEL', runs, unpack(joined))
	local used = {}
	if redis.call('EXISTS', attempts) == 1 then
		used = redis.call('HMGET', attempts, unpack(joined))
		redis.call('HDEL', attempts, unpack(joined))
	end
	local sequence_end = redis.call('INCRBY', sequence, #joined)
	-- as a string, so that Redis does not format the number once per job (as in reserve.lua)
	local expiry = millis(now + lease)
	local tokens, scores = {}, {}
	for i, id in ipairs(joined) do
		local attempt = (tonumber(used[i]) or 0) + 1
		local token = string.format('%d:%d', sequence_end - #joined + i, attempt)
		tokens[#tokens + 1] = id
		tokens[#tokens + 1] = token
		scores[#scores + 1] = expiry
		scores[#scores + 1] = id
		local at = #handed
		handed[at + 1], handed[at + 2], handed[at + 3], handed[at + 4] = id, envelopes[i], attempt, token
	end
	redis.call('HSET', leases, unpack(tokens))
	redis.call('ZADD', reserved, '+inf', RESERVED_END, unpack(scores))
end

-- Takes jobs out of their gates' lines: cancelled, rescheduled, replaced or finished. A job woken for a place that
-- leaves before its admission passes the place to the next in its line.
local function leave_lines(...)
	if redis.call('EXISTS', parked) == 0 then
		return
	end
	local found = false
	for _, entry in ipairs(redis.call('HMGET', parked, ...)) do
		if entry then
			found = true
			if redis.call('ZREM', lines, entry) == 0 then
				wake_line(string.match(entry, '^([^%z]*)%z'), 1)
			end
		end
	end
	if found then
		redis.call('HDEL', parked, ...)
	end
end

-- Removes every trace of the given jobs (one or more ids; at most a few thousand, the limit of unpack). Only jobs that
-- failed, stalled, waited, run long or have a level or group leave more than their envelope and lease.
local function forget(...)
	leave_lines(...)
	redis.call('HDEL', jobs, ...)
	redis.call('HDEL', leases, ...)
	-- runs, which any job whose lease ended without its result may be in (see end_lease), on its own; the other keys,
	-- which only jobs that failed, stalled, run long or have a level or group leave, most queues lack: one EXISTS for
	-- them all, not one each
	remove_present('HDEL', runs, ...)
	if redis.call('EXISTS', attempts, errors, stalls, traces, levels, started) > 0 then
		for _, hash in ipairs({attempts, errors, stalls, traces, levels}) do
			remove_present('HDEL', hash, ...)
		end
		remove_present('SREM', started, ...)
	end
end

-- Removes the given jobs from one of the sorted sets (reserved, delayed, dead) and every trace of them.
local function drop(set, ...)
	redis.call('ZREM', set, ...)
	forget(...)
end

-- A running job's lease token is '<sequence>:<attempt>': its attempt lives in the lease, and the attempts hash holds
-- only the attempts used by jobs that are not running (waiting for a retry, handed back, dead). While jobs succeed at
-- their first attempt that hash stays empty, so that reserving and acknowledging them do not search it.
-- Ends a job's lease and keeps the attempts it has used, less the ones given back, for its next run; returns them.
-- The run is recorded in runs, so that its result is accepted should it come late (see ack.lua), unless it was stopped
-- at its admission (admit.lua): its handler never started, so no result of it can come, and a backlog parked behind a
-- gate keeps no record each that its drain would have to delete.
local function end_lease(id, lease, given_back, stopped_at_admission)
	redis.call('HDEL', leases, id)
	if lease ~= '' and not stopped_at_admission then
		redis.call('HSET', runs, id, lease)
	end
	redis.call('SREM', started, id)
	local used = (tonumber(string.match(lease, ':(%d+)$')) or 0) - given_back
	if used > 0 then
		redis.call('HSET', attempts, id, used)
	end
	return used
end

-- The envelope's own maxAttempts (a payload field of that name is not it); an envelope without one, or that is no JSON
-- object, gets a single attempt, so that a job no worker survives still ends dead.
local function max_attempts_of(envelope)
	local decoded, value = pcall(function()
		return cjson.decode(envelope).maxAttempts
	end)
	return decoded and tonumber(value) or 1
end

-- A job's envelope: the Redis-clock times prepended to the body (the envelope JSON without its opening brace).
local function envelope(now, due, body)
	local created = millis(now)
	return '{"createdAt":' .. created .. ',"availableAt":' .. ((due > now) and millis(due) or created) .. ',' .. body
end

-- The time a job became or becomes ready (epoch ms), as envelope() wrote it at the start of its envelope: read there,
-- never searched for, so that no payload field is taken for it; nil for an envelope that does not start so.
local function available_at(envelope)
	return tonumber(string.match(envelope, '^{"createdAt":%-?%d+,"availableAt":(%-?%d+),'))
end

-- The envelope with the time it becomes ready replaced, in its place.
local function with_available_at(envelope, at)
	return (string.gsub(envelope, '^({"createdAt":%-?%d+,"availableAt":)%-?%d+', '%1' .. millis(at), 1))
end

-- Stores a job's envelope.
local function store(id, now, due, body)
	redis.call('HSET', jobs, id, envelope(now, due, body))
end

-- The levels hash's value for a level and group; nil for the default level without a group, which it does not keep.
local function place(level, group)
	if group then
		return level .. ' ' .. group
	end
	return (level ~= DEFAULT_LEVEL) and tostring(level) or nil
end

-- Records the level and group of a job (see Priorities and groups): kept for any but the default level without a
-- group, so that such a job costs nothing here. A replaced job, which may have had another, passes forget_old.
local function set_place(id, level, group, forget_old)
	local value = place(level, group)
	if value then
		redis.call('HSET', levels, id, value)
	elseif forget_old then
		redis.call('HDEL', levels, id)
	end
end

-- Stores a job at the level and in the group its body asks for and makes it delayed or ready; returns whether it is
-- ready (the caller signals once).
local function create(id, now, due, body)
	store(id, now, due, body)
	local level, group = place_of_body(body)
	set_place(id, level, group, false)
	if due > now then
		schedule(id, due)
		return false
	end
	if level == DEFAULT_LEVEL and not group then
		redis.call('RPUSH', ready, id)
	else
		queue_at(id, level, false, group)
	end
	return true
end

-- A dispatch that came while the job ran waits as its successor ("<due>:<body>"): it is created once the job has
-- completed or died.
local function promote(id)
	local successor = redis.call('HGET', successors, id)
	if successor then
		redis.call('HDEL', successors, id)
		local due, body = string.match(successor, '^(%-?%d+):(.*)$')
		if create(id, now_millis(), tonumber(due), body) then
			signal()
		end
	end
end

-- Deletes dead jobs past the max age, then the oldest beyond the max size, with every key they own, at most limit of
-- them; returns how many.
local function trim_dead(now, max_size, max_age, limit)
	local victims = redis.call('ZRANGEBYSCORE', dead, '-inf', '(' .. (now - max_age), 'LIMIT', 0, limit)
	local excess = math.min(redis.call('ZCARD', dead) - #victims - max_size, limit - #victims)
	if excess > 0 then
		for _, victim in ipairs(redis.call('ZRANGE', dead, #victims, #victims + excess - 1)) do
			victims[#victims + 1] = victim
		end
	end
	if #victims > 0 then
		drop(dead, unpack(victims))
	end
	return #victims
end

-- Batches (see batch.lua): a member of a batch is linked to it in batch_links (id -> batch id) from its enqueue
-- until it first finishes. Its finish ('s' acknowledged, 'd' dead, 'c' cancelled, 'p' purged with its queue, see
-- migrate.lua) ends the link and records a
-- hand-over in this queue's slot, '<batch id>\n<id>\n<outcome>' in the handover set by time, which the migrator
-- applies to the batch's own slot and then removes. A job without a link (no member, or finished before: run again,
-- revived, acknowledged late) hands nothing over; a queue without batches pays one EXISTS per call.
-- A chain's step (see chain.lua) is linked as 'chain:<chain id>', followed by the steps after it that run in this
-- same queue, each '\0<id>\n<due mode>\n<due value>\n<body>': its success creates the first of them here, in the
-- same step, linked with the rest, so that a chain's steps in one queue follow each other without waiting for a
-- hand-over; its death or cancellation drops them with the link. The hand-over names the chain alone. Returns the job
-- names of the steps it created, for the caller to count as dispatched, or nil for none.
local function batch_member_done(ids, outcome)
	if redis.call('EXISTS', batch_links) == 0 then
		return nil
	end
	local links = redis.call('HMGET', batch_links, unpack(ids))
	local now, linked, entries = now_millis(), {}, {}
	local woke, created = false, nil
	for i, id in ipairs(ids) do
		local link = links[i]
		if link then
			linked[#linked + 1] = id
			local cut = string.find(link, '\0', 1, true)
			if cut then
				local rest = string.sub(link, cut + 1)
				link = string.sub(link, 1, cut - 1)
				if outcome == 's' then
					local next_cut = string.find(rest, '\0', 1, true)
					local step = next_cut and string.sub(rest, 1, next_cut - 1) or rest
					local next_id, mode, value, body = string.match(step, '^([^\n]*)\n(%a)\n(%-?%d+)\n(.*)$')
					if redis.call('HEXISTS', jobs, next_id) == 0 then
						local due = (mode == 'a') and tonumber(value) or (now + tonumber(value))
						woke = create(next_id, now, due, body) or woke
						redis.call('HSET', batch_links, next_id,
							next_cut and (link .. string.sub(rest, next_cut)) or link)
						-- the name as JobEnvelope writes it, first after its times and level (a later '"job":' may be in
						-- the headers or the payload); one with an escape is read as JSON
						local at = string.find(body, '"job":"', 1, true)
						created = created or {}
						created[#created + 1] = (at and string.match(body, '^([^"\\]*)"', at + 7))
							or cjson.decode('{' .. body).job
					end
				end
			end
			entries[#entries + 1] = now
			entries[#entries + 1] = link .. '\n' .. id .. '\n' .. outcome
		end
	end
	if #linked > 0 then
		redis.call('HDEL', batch_links, unpack(linked))
		redis.call('ZADD', handover, unpack(entries))
	end
	if woke then
		signal()
	end
	return created
end

-- Tells the callers waiting for a queue's results (see result.lua) that jobs finished: kind 'c' (completed) or 'd'
-- (dead), then the ids, one a line (an id has no control characters), on the channel named like the waiting key, which
-- shares the queue's slot. Only while the waiting key exists, which a waiter keeps for its timeout: the key's value
-- says how the waiters listen, 's' for sharded pub/sub (a Cluster, where a plain PUBLISH reaches every node), else
-- plain. One GET when nobody waits. A Redis before 7 has no SPUBLISH: in a rolling upgrade of a Cluster, a waiter may
-- ask a master that runs one for sharded pub/sub; the job still finishes, and the wake-up goes out plain.
local function announce(kind, ids)
	local mode = redis.call('GET', waiting)
	if mode then
		local message = kind .. '\n' .. table.concat(ids, '\n')
		if mode ~= 's' or type(redis.pcall('SPUBLISH', waiting, message)) == 'table' then
			redis.call('PUBLISH', waiting, message)
		end
	end
end

-- Moves a job to the dead set and trims the dead set by age and size, at most 100 jobs per call.
local function bury(id, now, max_size, max_age)
	batch_member_done({id}, 'd')
	-- a job woken for a place that dies before its admission (its workers died past its stalls) passes the place on
	leave_lines(id)
	if redis.call('HEXISTS', successors, id) == 1 then
		-- the job's successor takes over its id: the dead job is dropped
		drop(reserved, id)
		promote(id)
		return
	end
	redis.call('ZADD', dead, now, id)
	announce('d', {id})
	trim_dead(now, max_size, max_age, 100)
end

-- The earliest time at which the migrator has work: the first delayed job due at a time, the first lease or
-- gate hold to expire or the first dead job to pass the dead max age; -1 for none. With none, hand-overs to batches
-- waiting are due now; otherwise the migrator's next pass, at the latest after its poll timeout, hands them over, so
-- that a busy queue's reservations pay nothing for them.
local function next_due(dead_max_age)
	local due = -1
	for _, set in ipairs({delayed, reserved, holding, dead}) do
		local head = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
		if head[2] and head[2] ~= 'inf' then
			local at = tonumber(head[2])
			if set == dead then
				at = at + dead_max_age
			end
			if due < 0 or at < due then
				due = at
			end
		end
	end
	-- hand-overs are due at once, whatever else waits (a lease may run for hours), and so are the parked jobs a queue of
	-- model 6 kept in delayed (see LEFT_IN_DELAYED), whose +inf is skipped above
	if due ~= 0 and (redis.call('EXISTS', handover) == 1 or redis.call('HEXISTS', parked, LEFT_IN_DELAYED) == 1) then
		due = 0
	end
	return due
end

-- Whether the script only reads (stats, status, dead: their first line says "-- Read-only:"), which QueueScripts
-- sets when it loads one. Such a script leaves a queue as it found it: it neither upgrades an older model, whose data
-- the read-only scripts read alike, nor writes the model key of a queue name it is asked about, which would then stay
-- forever.
local READ_ONLY = false

-- Every script first checks the queue's data model: it upgrades an older one and refuses a newer one, whose data it
-- would misread.
local found_model = tonumber(stored_model)
if found_model ~= MODEL then
	if found_model and found_model > MODEL then
		return redis.error_reply('Redq data model ' .. found_model .. ' in Redis for queue \'' ..
			string.match(model, '{(.*)}:model$') .. '\', these scripts use model ' .. MODEL ..
			': upgrade this instance to a Redq release that uses model ' .. found_model ..
			' (see "Upgrading" in the Redq documentation)')
	end
	-- Brings a queue kept by scripts of an older data model to MODEL, then records MODEL, one step per model. A queue
	-- without a model key is new, or kept by scripts from before models were recorded (model 1); the steps find
	-- nothing to change in a new queue. Not a helper: a helper is a closure made on every call.
	if not READ_ONLY then
		local found = found_model or 1
		if found < 2 then
			-- Model 2 keeps a running job's attempt in its lease token, '<sequence>:<attempt>', and only the attempts
			-- of jobs that are not running in the attempts hash; model 1 had tokens '<sequence>' and the attempts hash
			-- counted the running attempt too. Bounded by the running jobs.
			local held = redis.call('HGETALL', leases)
			for i = 1, #held, 2 do
				local id, token = held[i], held[i + 1]
				if not string.find(token, ':', 1, true) then
					redis.call('HSET', leases, id, token .. ':' .. (tonumber(redis.call('HGET', attempts, id)) or 1))
					redis.call('HDEL', attempts, id)
				end
			end
		end
		-- Model 3 adds the started set and the stalls hash. A queue of model 2 has neither, which model 3 reads as no
		-- run confirmed and no stall yet: nothing to convert.
		-- Model 4 adds the stale hash: a queue of model 3 has none, which model 4 reads as every entry of the ready
		-- list standing for its job, as model 3 kept it. It also adds the runs hash: a queue of model 3 has none, which
		-- model 4 reads as no lease ended without its result yet; a run from before the upgrade whose lease ends
		-- afterwards is recorded then, like any other. (Model 4 as first released recorded every run at its reservation
		-- instead: each release's scripts read the other's runs alike, a token there standing for a run no worker
		-- reserved the job since.) It also adds queued, levels and fair (priorities): a queue of model 3 has none,
		-- which model 4 reads as every job at the default level.
		-- Model 5 parks the jobs a gate stopped (see Gates) where model 4 deferred them by a recheck delay and listed
		-- them in a waiting set per gate: those jobs come back at their due times and are parked then, and the waiting
		-- sets expire. Model 5 has no lines, parked, holding or held yet, which it reads as no job parked and no gate
		-- held: the runs that model-4 scripts admitted leave their gates by their leases. It also adds batch_links and
		-- handover (batches) and waiting (results): a queue of model 4 has no batch members and no waiters, and model-4
		-- scripts, which would finish a member without handing it over or a job without announcing it, refuse a queue
		-- of model 5.
		-- Model 6 keeps the member RESERVED_END in reserved: a queue of model 5 has none, which model 6 reads alike
		-- (counts and listings stop below +inf), and its reserved set, a listpack or none, gets the member with its
		-- next ZADD.
		-- Model 7 keeps a parked job out of delayed (see Gates), where models 5 and 6 scored it +inf: the migrator
		-- takes such jobs out a batch a pass (see LEFT_IN_DELAYED), so that no call's cost grows with the jobs parked,
		-- and until then model 7 reads each as parked, counting and listing it once.
		if found < 7 and redis.call('ZCOUNT', delayed, '+inf', '+inf') > 0 then
			redis.call('HSET', parked, LEFT_IN_DELAYED, 1)
		end
		redis.call('SET', model, MODEL)
	end
end

-- Statistics: how many jobs completed ('c'), failed an attempt ('f') and died ('d'), in the queue's stats hash: a
-- ring of 60 per-minute buckets and a ring of per-hour buckets, as many as its field
-- 'hours' says (168 when absent), each field '<m|h><slot>' holding '<bucket index> <completed> <failed> <dead>'. A
-- bucket left from an older round of its ring is started again, so the hash never grows past its rings. An HMGET and an
-- HSET per call, whatever the number of jobs (and an HGET for a ring of other than 168 hours).
-- A death counts the attempt the job died on as failed too, whatever ended it (its handler failed, its lease expired,
-- its worker shut down, its data was missing), so that every job counts either completed or dead, and each dead one a
-- failed attempt.
-- Adds counts to the buckets of the time at (epoch ms); a bucket that its ring started again since that time holds
-- other times' counts, and is started again when restart is set (the time is now) or else left alone.
local function add_counts(at, completed, failed, dead, restart)
	local minute = math.floor(at / 60000)
	local hour = math.floor(minute / 60)
	local minute_field = 'm' .. (minute % 60)
	-- the hour's bucket of the default ring is read with the others, and read again only for another ring
	local default_field = 'h' .. (hour % 168)
	local read = redis.call('HMGET', stats, 'hours', minute_field, default_field)
	local hour_field = 'h' .. (hour % (tonumber(read[1]) or 168))
	local hour_value = read[3]
	if hour_field ~= default_field then
		hour_value = redis.call('HGET', stats, hour_field)
	end
	local buckets = {{minute_field, minute, read[2]}, {hour_field, hour, hour_value}}
	local written = {}
	for _, bucket in ipairs(buckets) do
		local index, c, f, d = string.match(bucket[3] or '', '^(%d+) (%d+) (%d+) (%d+)$')
		local current = tonumber(index) == bucket[2]
		if current or restart then
			if not current then
				c, f, d = 0, 0, 0
			end
			written[#written + 1] = bucket[1]
			-- never below 0: a death that scripts before deaths counted their failed attempt counted alone
			written[#written + 1] = bucket[2] .. ' ' .. (tonumber(c) + completed) .. ' '
				.. math.max(0, tonumber(f) + failed) .. ' ' .. math.max(0, tonumber(d) + dead)
		end
	end
	if #written > 0 then
		redis.call('HSET', stats, unpack(written))
	end
end

-- Counts jobs that completed, attempts that failed and jobs that died now.
local function count_finished(completed, failed, dead, now)
	add_counts(now, completed, failed, dead, true)
end

-- Takes back the death of a job that died at the given time, and the failed attempt it counted, when a run of it
-- completes after all (accepted late, see ack.lua): from the buckets of that time, while they still hold it.
local function uncount_death(died_at)
	add_counts(died_at, 0, -1, -1, false)
end

-- Acknowledges completed runs, given as their ids and lease tokens (in the same order) (see ack.lua, and hold.lua, which acknowledges the
-- run that leaves its gates in the same call): the accepted ones complete, and write_results (or nil) writes what
-- they leave before the callers waiting for them are told. Returns the refused ids, and the job names of the chain
-- steps their completions created (see batch_member_done) or nil.
local function acknowledge(ids, tokens_sent, keep, write_results)
	local tokens = redis.call('HMGET', leases, unpack(ids))
	local done, refused, created = {}, {}, nil
	for i, id in ipairs(ids) do
		local token = tokens_sent[i]
		if tokens[i] == token then
			done[#done + 1] = id
		elseif redis.call('HEXISTS', jobs, id) == 1 then
			if redis.call('HGET', runs, id) == token then
				-- finished late: out of the set it waits in (forget ends another worker's lease), or out of line; a job
				-- that died of this run's lease completes instead, and its death is taken back
				if redis.call('ZREM', reserved, id) == 0 then
					if redis.call('ZREM', delayed, id) == 1 then
						-- a delayed job has no member of queued but one that a script from before levels left when it
						-- rescheduled the job, which goes with it, out of its group
						if redis.call('EXISTS', stale) == 1 then
							forget_left_member(id)
						end
					else
						local died = redis.call('ZSCORE', dead, id)
						if died then
							redis.call('ZREM', dead, id)
							uncount_death(tonumber(died))
						else
							unready(id)
						end
					end
				end
				done[#done + 1] = id
			else
				refused[#refused + 1] = id
			end
		end
	end
	if #done > 0 then
		drop(reserved, unpack(done))
		local now = now_millis()
		count_finished(#done, 0, 0, now)
		created = batch_member_done(done, 's')
		if keep > 0 then
			local entries = {}
			for _, id in ipairs(done) do
				entries[#entries + 1] = now
				entries[#entries + 1] = id
			end
			redis.call('ZADD', completed, unpack(entries))
			redis.call('ZREMRANGEBYRANK', completed, 0, -keep - 1)
		end
		if write_results then
			write_results(done)
		end
		announce('c', done)
		if redis.call('EXISTS', successors) == 1 then
			for _, id in ipairs(done) do
				promote(id)
			end
		end
	end
	return refused, created
end
