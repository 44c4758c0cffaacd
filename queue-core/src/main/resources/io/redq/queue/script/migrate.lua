-- Moves due delayed jobs to ready, and jobs whose lease expired back to ready (or to dead once they used their
-- attempts), and deletes dead jobs past the dead max age or beyond the dead max size, at most ARGV[1] of each, and
-- trims the completed ids to their max size. ARGV: limit, dead max size, dead max age ms, completed max size.
-- Returns {now, due jobs moved, expired leases recovered, next due (-1 for none), dead jobs deleted}.
local now = now_millis()
local limit = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, limit)
if #due > 0 then
	redis.call('ZREM', delayed, unpack(due))
	redis.call('RPUSH', ready, unpack(due))
	signal()
end
local expired = redis.call('ZRANGEBYSCORE', reserved, '-inf', now, 'LIMIT', 0, limit)
for _, id in ipairs(expired) do
	redis.call('ZREM', reserved, id)
	local attempt = end_lease(id, redis.call('HGET', leases, id) or '', 0)
	local max_attempts = max_attempts_of(redis.call('HGET', jobs, id))
	redis.call('HSET', errors, id, 'Lease expired on attempt ' .. attempt .. ': the worker died or stalled')
	if attempt >= max_attempts then
		bury(id, now, tonumber(ARGV[2]), tonumber(ARGV[3]))
	else
		redis.call('LPUSH', ready, id)
		signal()
	end
end
-- dead jobs are trimmed here too, so that they go on a queue where nothing dies any more, and a lowered max size
-- applies without waiting for a death
local trimmed = trim_dead(now, tonumber(ARGV[2]), tonumber(ARGV[3]), limit)
-- ack trims the completed ids only while it keeps some (so that keeping none costs it nothing): ids kept under a
-- larger max size, or before it became 0, go here
redis.call('ZREMRANGEBYRANK', completed, 0, -tonumber(ARGV[4]) - 1)
return {now, #due, #expired, next_due(tonumber(ARGV[3])), trimmed}
