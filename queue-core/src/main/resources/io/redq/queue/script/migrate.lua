-- Moves due delayed jobs to ready, and jobs whose lease expired back to ready (or to dead once they used their
-- attempts), wakes the jobs parked behind gates held past their leases (see Gates in common.lua), takes the parked jobs
-- a queue of model 6 kept in delayed out of it, and deletes dead jobs past the dead max age or beyond the dead max
-- size, at most ARGV[1] of each, and
-- trims the completed ids to their max size. ARGV: limit, dead max size, dead max age ms, completed max size, max
-- stalls (how many times a job's lease may expire before a renewal confirmed its run started, without using an
-- attempt; see extend.lua). It also hands over, a page a pass, the links of batch members and chain steps a purge
-- deleted.
-- Returns {now, due jobs moved, expired leases recovered, next due (-1 for none), dead jobs deleted, whether completions
-- of batch members wait to be handed over (1) or not (0)}.
local now = now_millis()
local limit = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, limit)
if #due > 0 then
	redis.call('ZREM', delayed, unpack(due))
	-- each at its level (see Priorities in common.lua)
	make_ready(due, false)
	signal()
end
local expired = redis.call('ZRANGEBYSCORE', reserved, '-inf', now, 'LIMIT', 0, limit)
local max_stalls = tonumber(ARGV[5])
-- jobs handed back go to the head of their level's line
local back = {}
for _, id in ipairs(expired) do
	redis.call('ZREM', reserved, id)
	-- a run that no renewal confirmed may never have started (a lost reserve reply, a job reserved ahead by an
	-- instance that died): it gets its attempt back, a bounded number of times, so that a job that kills its worker
	-- before its first renewal still ends dead
	local stall = redis.call('SISMEMBER', started, id) == 0 and redis.call('HINCRBY', stalls, id, 1)
	local given_back = (stall and stall <= max_stalls) and 1 or 0
	local used = end_lease(id, redis.call('HGET', leases, id) or '', given_back)
	if given_back == 1 then
		redis.call('HSET', errors, id, 'Stalled before its run was confirmed (stall ' .. stall .. ' of at most '
			.. max_stalls .. ', attempt ' .. (used + 1) .. ' given back): its worker died, stalled or lost the reply '
			.. 'before its first lease renewal')
		back[#back + 1] = id
	else
		if stall then
			redis.call('HSET', errors, id, 'Stalled before its run was confirmed on attempt ' .. used .. ', past '
				.. 'the ' .. max_stalls .. ' stall(s) allowed: its worker died or stalled before its first lease renewal')
		else
			redis.call('HSET', errors, id, 'Lease expired on attempt ' .. used .. ': the worker died or stalled')
		end
		if used >= max_attempts_of(redis.call('HGET', jobs, id)) then
			bury(id, now, tonumber(ARGV[2]), tonumber(ARGV[3]))
			count_finished(0, 1, 1, now)
		else
			back[#back + 1] = id
		end
	end
end
if #back > 0 then
	make_ready(back, true)
	signal()
end
-- the gates of runs that held them past their leases (their workers died or stalled, or left without a reply) are
-- free: the first job parked in each of their lines is woken, for at most 100 holders a pass (each wakes up to four
-- lines)
local holders = redis.call('ZRANGEBYSCORE', holding, '-inf', now, 'LIMIT', 0, math.min(limit, 100))
if #holders > 0 then
	for _, gates in ipairs(redis.call('HMGET', held, unpack(holders))) do
		for gate in string.gmatch(gates or '', '[^%z]+') do
			wake_line(gate, 1)
		end
	end
	redis.call('ZREM', holding, unpack(holders))
	redis.call('HDEL', held, unpack(holders))
end
-- a queue upgraded from model 6 keeps its parked jobs in delayed at +inf until they are taken out here, a batch a pass
-- (see LEFT_IN_DELAYED in common.lua): each waits in its line, all that model 7 keeps of a parked job
if redis.call('HEXISTS', parked, LEFT_IN_DELAYED) == 1 then
	local left = redis.call('ZRANGEBYSCORE', delayed, '+inf', '+inf', 'LIMIT', 0, limit)
	if #left > 0 then
		redis.call('ZREM', delayed, unpack(left))
	end
	if #left < limit then
		redis.call('HDEL', parked, LEFT_IN_DELAYED)
	end
end
-- dead jobs are trimmed here too, so that they go on a queue where nothing dies any more, and a lowered max size
-- applies without waiting for a death
local trimmed = trim_dead(now, tonumber(ARGV[2]), tonumber(ARGV[3]), limit)
-- after a purge (purge.lua), the links whose jobs it deleted are handed over as purged ('p'), so that their batches and
-- chains end: a page of about 100 links a pass, from the cursor kept as the score of the handover set's member '',
-- which keeps the migrator coming back until the last page (see next_due). A link whose job lives is one dispatched
-- since; a link found twice (HSCAN may return one again) was deleted the first time.
local cursor = redis.call('ZSCORE', handover, '')
if cursor then
	local page = redis.call('HSCAN', batch_links, string.format('%.0f', tonumber(cursor)), 'COUNT', 100)
	local purged = {}
	for i = 1, #page[2], 2 do
		if redis.call('HEXISTS', jobs, page[2][i]) == 0 then
			purged[#purged + 1] = page[2][i]
		end
	end
	if #purged > 0 then
		batch_member_done(purged, 'p')
	end
	if page[1] == '0' then
		redis.call('ZREM', handover, '')
	else
		redis.call('ZADD', handover, page[1], '')
	end
end
-- ack trims the completed ids only while it keeps some (so that keeping none costs it nothing): ids kept under a
-- larger max size, or before it became 0, go here
redis.call('ZREMRANGEBYRANK', completed, 0, -tonumber(ARGV[4]) - 1)
-- a reserved set left with RESERVED_END alone goes: an empty skiplist keeps the memory of the most it held
if redis.call('ZCARD', reserved) == 1 and redis.call('ZSCORE', reserved, RESERVED_END) then
	redis.call('DEL', reserved)
end
return {now, #due, #expired, next_due(tonumber(ARGV[3])), trimmed, redis.call('EXISTS', handover)}
