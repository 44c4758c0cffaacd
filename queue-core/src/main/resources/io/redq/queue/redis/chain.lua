-- A chain's state, under a hash tag of its own ({<chain id>}) since its steps live in queues of other slots. KEYS:
-- meta (hash). ARGV[1] names the operation, the rest are its own.
-- meta: model (of this layout, 1), state ('creating' until its first step is enqueued, 'running', then 'succeeded',
-- 'failed' or 'cancelled'), reason (why it ended without succeeding), linger (ms the key is kept once ended), steps
-- (how many), at (the current step, from 1), per step i: q<i> and j<i> (its queue and job id, '<chain id>:<i>'), o<i>
-- (how it finished: 's' succeeded, 'd' dead, 'c' cancelled, 'p' purged with its queue), s<i> (a step whose queue is
-- not its predecessor's, until it is enqueued: '<queue>\n<id>\n<due mode>\n<due value>\n<body>' as the enqueue script
-- takes it, then the steps after it in the same queue as its link carries them, see batch_member_done in common.lua),
-- failure (the on-failure job, in the same form, until it is enqueued), cancelling (set by cancel), cancelled (set by
-- a cancel that ended the chain at once: its reply's code, see cancel), parent (for a
-- chain that is a member of a batch: that batch's id, in which this chain's id is the member; kept until the chain's
-- end is handed over to it as '<batch id>\n<outcome>', 's' succeeded, 'd' failed, 'c' cancelled, applied there once).
-- A step that is a batch has the queue '{batch}' (no queue has braces), the id '<chain id>:<i>' of that batch, and
-- in s<i> the batch to create (see ChainOperations), whose end reaches the chain as its parent.
-- A step's finish reaches the chain as a batch member's does (batch_member_done in common.lua, the link being
-- 'chain:<chain id>'): it counts once (HSETNX of o<i>), so that a hand-over applied again, a step run again or
-- acknowledged late changes nothing, and in any order: a step that its predecessor's acknowledgement created in the
-- same queue may finish before that acknowledgement is handed over. The step that finds the current step succeeded
-- moves the chain on past every step that succeeded, to the next one, whose job (when the chain enqueues it) every
-- later call returns until the mover that enqueued it (under a fixed id, as a remembered call) reports it delivered;
-- the step that finds one dead ends the chain and keeps the on-failure job, returned likewise.
-- Returns, for create, 1 when done and 0 when the chain is not in a state for it; for cancel, {0} when the chain was
-- not running, else {1, queue, id, ...}: the steps to cancel in their queue (the current step and those after it in
-- the same queue, which its acknowledgement may have created), {2, ...} likewise when the current step was not
-- recorded delivered, so that a mover may still enqueue it: the caller then forestalls that enqueue, {3, ...} likewise
-- for a chain cancelled while it was created, whose first step its creator may still enqueue, and {0, 2 or 3, ...}
-- for a chain that such a cancel ended, that cancel's reply after a 0 (see cancel); for forestall, see there; for the
-- others
-- the jobs to deliver: {linger, name, job, ...}, empty for none.
local meta = KEYS[1]
local op = ARGV[1]

local function undelivered()
	local found = redis.call('HMGET', meta, 'state', 'linger', 'at', 'failure', 'parent')
	local result = {found[2]}
	if found[1] == 'running' then
		local name = 's' .. found[3]
		local step = redis.call('HGET', meta, name)
		if step then
			result[#result + 1] = name
			result[#result + 1] = step
		end
	elseif found[1] ~= 'creating' then
		if found[1] == 'failed' and found[4] then
			result[#result + 1] = 'failure'
			result[#result + 1] = found[4]
		end
		if found[5] then
			result[#result + 1] = 'parent'
			result[#result + 1] = found[5] .. '\n' .. ({succeeded = 's', failed = 'd', cancelled = 'c'})[found[1]]
		end
	end
	return (#result > 1) and result or {}
end

-- Ends the chain at its current step: the later steps are never enqueued, the on-failure job only when it failed.
local function finish(state, reason, at, steps)
	redis.call('HSET', meta, 'state', state, 'reason', reason)
	local unstarted = {}
	for i = at, steps do
		unstarted[#unstarted + 1] = 's' .. i
	end
	if state ~= 'failed' then
		unstarted[#unstarted + 1] = 'failure'
	end
	if #unstarted > 0 then
		redis.call('HDEL', meta, unpack(unstarted))
	end
	redis.call('PEXPIRE', meta, redis.call('HGET', meta, 'linger'))
end

-- Moves a running chain on once its current step finished: past every step that succeeded, to the next step that has
-- not finished, or to its end.
local function advance()
	local found = redis.call('HMGET', meta, 'state', 'at', 'steps', 'cancelling')
	if found[1] ~= 'running' then
		return
	end
	local at, steps = tonumber(found[2]), tonumber(found[3])
	local moved = at
	while true do
		local outcome = redis.call('HGET', meta, 'o' .. moved)
		if not outcome then
			break
		end
		if outcome == 'd' or outcome == 'p' then
			local step = redis.call('HMGET', meta, 'j' .. moved, 'q' .. moved)
			local which = (step[2] == '{batch}') and ('step ' .. moved .. ' (batch ' .. step[1] .. ')')
				or ('step ' .. moved .. ' (job ' .. step[1] .. ' of queue \'' .. step[2] .. '\')')
			if outcome == 'd' then
				finish('failed', which .. ((step[2] == '{batch}') and ' failed' or ' died'), moved + 1, steps)
			else
				finish('cancelled', which .. ' was purged with its queue', moved + 1, steps)
			end
			return
		elseif outcome == 'c' or found[4] then
			finish('cancelled', 'the chain was cancelled', moved + 1, steps)
			return
		elseif moved == steps then
			finish('succeeded', '', moved + 1, steps)
			return
		end
		moved = moved + 1
	end
	if moved ~= at then
		redis.call('HSET', meta, 'at', moved)
	end
end

if op == 'create' then
	-- ARGV: creation window (ms), linger (ms), the on-failure job or '', the parent or '', then per step: queue, id,
	-- job ('' for the first, which the caller enqueues). The key expires after the window unless the chain is opened,
	-- so that a creation that failed half-way leaves nothing. A re-send that comes after the opening is refused.
	local state = redis.call('HGET', meta, 'state')
	if state and state ~= 'creating' then
		return {0}
	end
	local fields = {'model', 1, 'state', 'creating', 'linger', ARGV[3], 'at', 1, 'steps', (#ARGV - 5) / 3}
	for i, name in ipairs({'failure', 'parent'}) do
		if ARGV[3 + i] ~= '' then
			fields[#fields + 1] = name
			fields[#fields + 1] = ARGV[3 + i]
		end
	end
	for i = 1, (#ARGV - 5) / 3 do
		local at = 5 + (i - 1) * 3
		fields[#fields + 1] = 'q' .. i
		fields[#fields + 1] = ARGV[at + 1]
		fields[#fields + 1] = 'j' .. i
		fields[#fields + 1] = ARGV[at + 2]
		if ARGV[at + 3] ~= '' then
			fields[#fields + 1] = 's' .. i
			fields[#fields + 1] = ARGV[at + 3]
		end
	end
	redis.call('HSET', meta, unpack(fields))
	redis.call('PEXPIRE', meta, ARGV[2])
	return {1}
elseif op == 'open' then
	-- the first step is enqueued: the chain runs, and moves on at once when that step finished meanwhile
	if redis.call('HGET', meta, 'state') == 'creating' then
		redis.call('HSET', meta, 'state', 'running')
		redis.call('PERSIST', meta)
		advance()
	end
	return undelivered()
elseif op == 'apply' then
	-- ARGV: the steps' queue, then per step: id, outcome ('s' succeeded, 'd' dead, 'c' cancelled, 'p' purged with its
	-- queue: the chain ends cancelled)
	if redis.call('EXISTS', meta) == 0 then
		-- lingered out, or its creation failed
		return {}
	end
	for i = 3, #ARGV, 2 do
		local step = string.match(ARGV[i], ':(%d+)$')
		if step and redis.call('HGET', meta, 'j' .. step) == ARGV[i]
				and redis.call('HSETNX', meta, 'o' .. step, ARGV[i + 1]) == 1 then
			advance()
		end
	end
	return undelivered()
elseif op == 'delivered' then
	-- ARGV: the job's name (s<i> or failure)
	redis.call('HDEL', meta, ARGV[2])
	return {}
elseif op == 'cancel' then
	-- ARGV: 'creating' to cancel a chain still being created too (one nested in a batch that a mover creates, which
	-- is cancelled meanwhile): it ends at once, its first step as the current step not delivered
	local found = redis.call('HMGET', meta, 'state', 'at', 'steps', 'cancelled')
	local creating = found[1] == 'creating' and ARGV[2] == 'creating'
	local at = tonumber(found[2])
	local result
	if found[1] == 'running' or creating then
		local undelivered = creating or redis.call('HEXISTS', meta, 's' .. at) == 1
		result = {creating and 3 or undelivered and 2 or 1}
		if undelivered then
			-- the current step is not enqueued yet, and never will be (a live mover that read it before may still be
			-- on its way: the caller forestalls its enqueue); or a mover enqueued it and died before it recorded the
			-- delivery, so that it is cancelled in its queue all the same, lest it run and create the steps after it
			finish('cancelled', 'the chain was cancelled', at, tonumber(found[3]))
			redis.call('HSET', meta, 'cancelled', result[1])
		else
			redis.call('HSET', meta, 'cancelling', 1)
		end
	elseif found[4] == '2' or (found[4] == '3' and ARGV[2] == 'creating') then
		-- ended by a cancel whose reply was lost, and this call is that cancel re-sent after a reconnect (or a later
		-- one): its caller forestalls and cancels as that cancel's would have, which changes nothing when it did
		result = {0, tonumber(found[4])}
	else
		return {0}
	end
	local step = redis.call('HMGET', meta, 'q' .. at, 'j' .. at)
	result[#result + 1] = step[1]
	result[#result + 1] = step[2]
	for i = at + 1, tonumber(found[3]) do
		local later = redis.call('HMGET', meta, 'q' .. i, 'j' .. i)
		if later[1] ~= step[1] then
			break
		end
		result[#result + 1] = later[2]
	end
	return result
elseif op == 'forestall' then
	-- ARGV: how long (ms) to keep the chain. A chain nested in a batch cancelled while a mover creates it, which that
	-- mover may still create: made cancelled before it exists (no steps), its creation is refused; the caller counts it
	-- cancelled in that batch. Returns 1 when the chain is so (made now or by this call before), 0 when a chain was
	-- created under its id (then cancelled as one being created)
	if redis.call('EXISTS', meta) == 1 then
		return {(redis.call('HGET', meta, 'steps') == '0') and 1 or 0}
	end
	redis.call('HSET', meta, 'model', 1, 'state', 'cancelled', 'reason', 'the chain was cancelled', 'linger', ARGV[2],
		'at', 1, 'steps', 0)
	redis.call('PEXPIRE', meta, ARGV[2])
	return {1}
end
return redis.error_reply('Unknown chain operation ' .. tostring(op))
