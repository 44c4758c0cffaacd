-- Enqueues one job ready at once under a generated id, at the default level and in no group: what a web request's
-- single dispatch makes, and what enqueue.lua would do with it, in a script that defines only the few helpers it
-- calls (Redis makes each helper a script defines on every call), in a call that is harmless when re-sent (see
-- remembered in common.lua). No other job holds a generated id, so none is looked up. ARGV: the call's sequence
-- number and re-send window (ms), id, envelope body (the envelope JSON without its opening brace). Returns {1}
-- (created), as enqueue.lua does for such a job.
local replied = remembered()
if replied then
	return {tonumber(replied)}
end
local id = ARGV[3]
local now = now_millis()
redis.call('HSET', jobs, id, envelope(now, now, ARGV[4]))
redis.call('RPUSH', ready, id)
signal()
remember('1')
return {1}
