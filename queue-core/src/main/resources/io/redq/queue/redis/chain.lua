-- A chain's state, under a hash tag of its own ({<chain id>}) since its steps live in queues of other slots. KEYS:
-- meta (hash). ARGV[1] names the operation, the rest are its own.
-- meta: model (of this layout, 1), state ('creating' until its first step is enqueued, 'running', then 'succeeded',
-- 'failed' or 'cancelled'), reason (why it ended without succeeding), linger (ms the key is kept once ended), steps
-- (how many), at (the current step, from 1), per step i: q<i> and j<i> (its queue and job id), o<i> (how it finished:
-- 's' succeeded, 'd' dead, 'c' cancelled), s<i> (a step after the first, until it is enqueued: '<queue>\n<id>\n<due
-- mode>\n<due value>\n<body>' as the enqueue script takes it), failure (the on-failure job, in the same form, until it
-- is enqueued), cancelling (set by cancel).
-- A step's finish reaches the chain as a batch member's does (batch_member_done in common.lua, the link being
-- 'chain:<chain id>'): it counts only for the current step and only once (HSETNX of o<i>), so that a hand-over applied
-- again, a step run again or acknowledged late changes nothing. The step that finds the current step succeeded moves
-- the chain to the next one, whose job every later call returns until the mover that enqueued it (under a fixed id,
-- as a remembered call) reports it delivered; the step that finds it dead ends the chain and keeps the on-failure
-- job, returned likewise.
-- Returns, for create, 1 when done and 0 when the chain is not in a state for it; for cancel, {0} when the chain was
-- not running, {1} when it ended at once, {1, queue, id} when that step must be cancelled in its queue; for the others
-- the jobs to deliver: {linger, name, job, ...}, empty for none.
local meta = KEYS[1]
local op = ARGV[1]

local function undelivered()
	local found = redis.call('HMGET', meta, 'state', 'linger', 'at', 'failure')
	if found[1] == 'running' then
		local name = 's' .. found[3]
		local step = redis.call('HGET', meta, name)
		if step then
			return {found[2], name, step}
		end
	elseif found[1] == 'failed' and found[4] then
		return {found[2], 'failure', found[4]}
	end
	return {}
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

-- Moves a running chain on once its current step finished: to the next step, or to its end.
local function advance()
	local found = redis.call('HMGET', meta, 'state', 'at', 'steps', 'cancelling')
	if found[1] ~= 'running' then
		return
	end
	local at, steps = tonumber(found[2]), tonumber(found[3])
	local outcome = redis.call('HGET', meta, 'o' .. at)
	if not outcome then
		return
	end
	if outcome == 'd' then
		local step = redis.call('HMGET', meta, 'j' .. at, 'q' .. at)
		finish('failed', 'step ' .. at .. ' (job ' .. step[1] .. ' of queue \'' .. step[2] .. '\') died', at + 1, steps)
	elseif outcome == 'c' or found[4] then
		finish('cancelled', 'the chain was cancelled', at + 1, steps)
	elseif at == steps then
		finish('succeeded', '', at + 1, steps)
	else
		redis.call('HSET', meta, 'at', at + 1)
	end
end

if op == 'create' then
	-- ARGV: creation window (ms), linger (ms), the on-failure job or '', then per step: queue, id, job ('' for the
	-- first, which the caller enqueues). The key expires after the window unless the chain is opened, so that a
	-- creation that failed half-way leaves nothing. A re-send that comes after the opening is refused.
	local state = redis.call('HGET', meta, 'state')
	if state and state ~= 'creating' then
		return {0}
	end
	local fields = {'model', 1, 'state', 'creating', 'linger', ARGV[3], 'at', 1, 'steps', (#ARGV - 4) / 3}
	if ARGV[4] ~= '' then
		fields[#fields + 1] = 'failure'
		fields[#fields + 1] = ARGV[4]
	end
	for i = 1, (#ARGV - 4) / 3 do
		local at = 4 + (i - 1) * 3
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
	-- ARGV: the steps' queue, then per step: id, outcome ('s' succeeded, 'd' dead, 'c' cancelled)
	if redis.call('EXISTS', meta) == 0 then
		-- lingered out, or its creation failed
		return {}
	end
	for i = 3, #ARGV, 2 do
		local at = redis.call('HGET', meta, 'at')
		if redis.call('HGET', meta, 'j' .. at) == ARGV[i] and redis.call('HSETNX', meta, 'o' .. at, ARGV[i + 1]) == 1 then
			advance()
		end
	end
	return undelivered()
elseif op == 'delivered' then
	-- ARGV: the job's name (s<i> or failure)
	redis.call('HDEL', meta, ARGV[2])
	return {}
elseif op == 'cancel' then
	local found = redis.call('HMGET', meta, 'state', 'at', 'steps')
	if found[1] ~= 'running' then
		return {0}
	end
	local at = tonumber(found[2])
	if redis.call('HEXISTS', meta, 's' .. at) == 1 then
		-- the current step is not enqueued yet: it never will be
		finish('cancelled', 'the chain was cancelled', at, tonumber(found[3]))
		return {1}
	end
	redis.call('HSET', meta, 'cancelling', 1)
	local step = redis.call('HMGET', meta, 'q' .. at, 'j' .. at)
	return {1, step[1], step[2]}
end
return redis.error_reply('Unknown chain operation ' .. tostring(op))
