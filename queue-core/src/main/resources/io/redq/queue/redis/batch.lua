-- A batch's state, under a hash tag of its own ({<batch id>}) since its members live in queues of other slots. KEYS:
-- meta (hash), pending (set of the ids of the members that have not finished), dead (list of '<queue>\n<id>' of the
-- members that died, in the order their deaths were handed over), succeeded (likewise of the members that succeeded,
-- whose results a callback reads in their queues). ARGV[1] names the operation, the rest are its own.
-- meta: model (of this layout, 1), state ('creating' until every member is enqueued, 'open', 'ended'), outcome once
-- ended ('succeeded', 'failed', 'cancelled'), policy ('f' fail fast: ended at the first death; 'c' carry on), linger
-- (ms the keys are kept once ended), queues (the members' queues, '\n' between), cancelling (set by cancel), total,
-- succeeded, dead, cancelled (counts of finished members), and the callbacks not delivered yet: success and complete,
-- each '<queue>\n<id>\n<due mode>\n<due value>\n<body>' as the enqueue script takes it; the members added while
-- it runs (see add): adds:<id> (the number of the latest add of a member that added, kept until its completion is
-- applied with every add of it confirmed or settled), adders (how many members have it) and add:<id>:<n>
-- ('<queue>\n<call id>\n<ids '\n' between>' of one add whose enqueue is not confirmed); and parent, for a batch
-- nested in another workflow (a member of a batch, a step of a chain), the link of that workflow (its batch id, or
-- 'chain:<chain id>'), in which this batch's id is the member: the batch's end is handed over to it as a callback
-- is delivered, as '<link>\n<outcome>' ('s' succeeded, 'd' failed, 'c' cancelled), applied there once.
-- Exactly once, never by a count: a member counts when it leaves pending (SREM says whether it was there), so that a
-- hand-over applied again changes nothing; the batch ends in the one step that finds it done (state -> ended), which
-- deletes the callbacks its outcome does not call for. The callbacks left are returned by every later call until the
-- mover that enqueued one reports it delivered, which deletes it.
-- Returns, for create, cancel and forestall, 1 when done and 0 when the batch is not in a state for it; for add, see
-- there; for the others the callbacks to deliver and, for apply, the adds to settle: {linger, name, value, ...}, empty
-- for none.
local meta, pending, dead, succeeded = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op = ARGV[1]

local function undelivered()
	local found = redis.call('HMGET', meta, 'state', 'linger', 'success', 'complete', 'parent', 'outcome')
	if found[1] ~= 'ended' or not (found[3] or found[4] or found[5]) then
		return {}
	end
	local result = {found[2]}
	if found[5] then
		result[#result + 1] = 'parent'
		result[#result + 1] = found[5] .. '\n' .. ({succeeded = 's', failed = 'd', cancelled = 'c'})[found[6]]
	end
	if found[3] then
		result[#result + 1] = 'success'
		result[#result + 1] = found[3]
	end
	if found[4] then
		result[#result + 1] = 'complete'
		result[#result + 1] = found[4]
	end
	return result
end

-- Ends an open batch whose members have all finished, or whose first member died under fail fast: in this one step,
-- behind the state, so that each callback is decided once.
local function settle()
	local found = redis.call('HMGET', meta, 'state', 'policy', 'dead', 'cancelled', 'cancelling', 'linger')
	if found[1] ~= 'open' then
		return
	end
	local deaths, cancelled = tonumber(found[3]), tonumber(found[4])
	local outcome
	if deaths > 0 and (found[2] == 'f' or redis.call('SCARD', pending) == 0) then
		outcome = 'failed'
	elseif redis.call('SCARD', pending) == 0 then
		outcome = (cancelled > 0 or found[5]) and 'cancelled' or 'succeeded'
	else
		return
	end
	redis.call('HSET', meta, 'state', 'ended', 'outcome', outcome)
	if outcome ~= 'succeeded' then
		redis.call('HDEL', meta, 'success')
	end
	for _, key in ipairs({meta, pending, dead, succeeded}) do
		redis.call('PEXPIRE', key, found[6])
	end
end

-- Appends the names and values of a member's adds not confirmed to found; returns how many it has.
local function unconfirmed(member, found)
	local count = 0
	for n = 1, tonumber(redis.call('HGET', meta, 'adds:' .. member) or '0') do
		local name = 'add:' .. member .. ':' .. n
		local add = redis.call('HGET', meta, name)
		if add then
			found[#found + 1] = name
			found[#found + 1] = add
			count = count + 1
		end
	end
	return count
end

-- Forgets a finished member that has no adds left to confirm.
local function forget_adder(member)
	if redis.call('HDEL', meta, 'adds:' .. member) == 1 and redis.call('HINCRBY', meta, 'adders', -1) == 0 then
		redis.call('HDEL', meta, 'adders')
	end
end

if op == 'create' then
	-- ARGV: creation window (ms), policy, linger (ms), total, queues, success or '', complete or '', parent or '',
	-- then member ids (a nested workflow's id among them).
	-- Called once per chunk of members, all before any member is enqueued; the keys expire after the window unless
	-- sealed, so that a creation that failed half-way leaves nothing. A re-send that comes after the seal is refused,
	-- and so is a call after a cancel, which cancelled or counted the members it found pending (see cancel).
	local found = redis.call('HMGET', meta, 'state', 'cancelling')
	local state = found[1]
	if state and state ~= 'creating' or found[2] then
		return {0}
	end
	if not state then
		redis.call('HSET', meta, 'model', 1, 'state', 'creating', 'policy', ARGV[3], 'linger', ARGV[4], 'total', ARGV[5],
			'queues', ARGV[6], 'succeeded', 0, 'dead', 0, 'cancelled', 0)
		if ARGV[7] ~= '' then
			redis.call('HSET', meta, 'success', ARGV[7])
		end
		if ARGV[8] ~= '' then
			redis.call('HSET', meta, 'complete', ARGV[8])
		end
		if ARGV[9] ~= '' then
			redis.call('HSET', meta, 'parent', ARGV[9])
		end
	end
	-- made again (an outbox row applied again) once every member was added, it adds nothing: members may have been
	-- enqueued and finished since, and were counted when they left pending
	local added = redis.call('HMGET', meta, 'total', 'succeeded', 'dead', 'cancelled')
	if #ARGV > 9 and redis.call('SCARD', pending) + added[2] + added[3] + added[4] < tonumber(added[1]) then
		redis.call('SADD', pending, unpack(ARGV, 10))
	end
	redis.call('PEXPIRE', meta, ARGV[2])
	redis.call('PEXPIRE', pending, ARGV[2])
	return {1}
elseif op == 'seal' then
	-- every member is enqueued: the batch is open, and ends at once when its members have finished meanwhile
	if redis.call('HGET', meta, 'state') == 'creating' then
		redis.call('HSET', meta, 'state', 'open')
		redis.call('PERSIST', meta)
		redis.call('PERSIST', pending)
		redis.call('PERSIST', dead)
		redis.call('PERSIST', succeeded)
		settle()
	end
	return undelivered()
elseif op == 'apply' then
	-- ARGV: the members' queue, then per member: id, outcome ('s' succeeded, 'd' dead, 'c' cancelled, 'p' purged with
	-- its queue, counted as cancelled). A member that finished with adds not confirmed (its worker died between an add
	-- and its enqueue, or the enqueue failed) gets them returned, each as 'add:<id>:<n>' and the add, by every apply of
	-- its finish until the mover settled them (see settled): the batch waits for their members meanwhile. A batch
	-- without such adds pays one HGET per call for them.
	if redis.call('EXISTS', meta) == 0 then
		-- lingered out, or its creation failed
		return {}
	end
	local queue = ARGV[2]
	local adders = tonumber(redis.call('HGET', meta, 'adders') or '0') > 0
	local adds = {}
	for i = 3, #ARGV, 2 do
		local id, outcome = ARGV[i], ARGV[i + 1]
		if redis.call('SREM', pending, id) == 1 then
			redis.call('HINCRBY', meta, (outcome == 's') and 'succeeded' or (outcome == 'd') and 'dead' or 'cancelled', 1)
			if outcome == 's' or outcome == 'd' then
				local list = (outcome == 'd') and dead or succeeded
				-- a list begun before the seal expires with the creation window, one begun after the end (under fail
				-- fast) lingers with the rest; later entries keep its expiry
				if redis.call('RPUSH', list, queue .. '\n' .. id) == 1 then
					local ttl = redis.call('PTTL', meta)
					if ttl > 0 then
						redis.call('PEXPIRE', list, ttl)
					end
				end
			end
			settle()
		end
		if adders and unconfirmed(id, adds) == 0 then
			forget_adder(id)
		end
	end
	local result = undelivered()
	if #adds > 0 then
		if #result == 0 then
			result[1] = redis.call('HGET', meta, 'linger')
		end
		for _, value in ipairs(adds) do
			result[#result + 1] = value
		end
	end
	return result
elseif op == 'delivered' then
	-- ARGV: the callback's name
	redis.call('HDEL', meta, ARGV[2])
	return {}
elseif op == 'add' then
	-- ARGV: the adding member's id, the added members' queue, the id of the call that enqueues them, then their ids.
	-- Added only while the batch is open and the adding member is pending, so that the batch cannot end before the
	-- added members are in pending: it ends no earlier than the adding member's own completion is handed over. The add
	-- is kept until its enqueue is confirmed (see confirmed), or else settled once the adding member finished (see
	-- apply). Returns {1, n} when added as the member's add n, {0, state, outcome} when the batch is not open (or gone:
	-- {0}) or is being cancelled (outcome 'cancelled': its cancel forestalls the enqueues of the adds it finds, and
	-- would miss those after it), {-1} when the adding member is not pending. Re-sent, it adds an add that settles to
	-- nothing.
	local found = redis.call('HMGET', meta, 'state', 'outcome', 'queues', 'cancelling')
	if found[1] ~= 'open' or found[4] then
		return {0, found[1], found[4] and 'cancelled' or found[2]}
	end
	local member, queue = ARGV[2], ARGV[3]
	if redis.call('SISMEMBER', pending, member) == 0 then
		return {-1}
	end
	if not string.find('\n' .. found[3] .. '\n', '\n' .. queue .. '\n', 1, true) then
		redis.call('HSET', meta, 'queues', found[3] .. '\n' .. queue)
	end
	redis.call('HINCRBY', meta, 'total', redis.call('SADD', pending, unpack(ARGV, 5)))
	local n = redis.call('HINCRBY', meta, 'adds:' .. member, 1)
	if n == 1 then
		redis.call('HINCRBY', meta, 'adders', 1)
	end
	redis.call('HSET', meta, 'add:' .. member .. ':' .. n, queue .. '\n' .. ARGV[4] .. '\n' .. table.concat(ARGV, '\n', 5))
	return {1, n}
elseif op == 'confirmed' then
	-- ARGV: the adding member's id, the number of its add, whose members are enqueued
	redis.call('HDEL', meta, 'add:' .. ARGV[2] .. ':' .. ARGV[3])
	return {}
elseif op == 'settled' then
	-- ARGV: the adding member's id, the number of an add the mover settled (its members that were never enqueued are
	-- counted cancelled)
	redis.call('HDEL', meta, 'add:' .. ARGV[2] .. ':' .. ARGV[3])
	if unconfirmed(ARGV[2], {}) == 0 then
		forget_adder(ARGV[2])
	end
	return {}
elseif op == 'cancel' then
	-- ARGV: 'creating' to cancel a batch still being created too, whose caller forestalls the enqueues of its members
	-- and counts cancelled those never enqueued (see BatchOperations): its seal then opens it as being cancelled.
	-- The members still pending are then cancelled in their queues, whose hand-overs end the batch
	local state = redis.call('HGET', meta, 'state')
	if state ~= 'open' and not (state == 'creating' and ARGV[2] == 'creating') then
		return {0}
	end
	redis.call('HSET', meta, 'cancelling', 1)
	return {1}
elseif op == 'forestall' then
	-- ARGV: how long (ms) to keep the batch. A batch step of a chain cancelled after a mover read the step, or a batch
	-- nested in a batch cancelled while a mover creates it, which that mover may still create: made ended and cancelled
	-- before it exists (no queues), its creation is refused. Returns 1 when the batch is so (made now or by this call
	-- before), 0 when a batch was created under its id (then cancelled as any other)
	if redis.call('EXISTS', meta) == 1 then
		return {redis.call('HEXISTS', meta, 'queues') == 0 and 1 or 0}
	end
	redis.call('HSET', meta, 'model', 1, 'state', 'ended', 'outcome', 'cancelled', 'policy', 'c', 'linger', ARGV[2],
		'total', 0, 'succeeded', 0, 'dead', 0, 'cancelled', 0)
	redis.call('PEXPIRE', meta, ARGV[2])
	return {1}
end
return redis.error_reply('Unknown batch operation ' .. tostring(op))
