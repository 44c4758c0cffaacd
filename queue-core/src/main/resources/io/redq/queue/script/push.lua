-- Enqueues jobs ready at once under generated ids, at the default level and in no group: what a web request's single
-- dispatch makes, and most batches, and what enqueue.lua would do with them, in a script that defines only the few
-- helpers it calls (Redis makes each helper a script defines on every call) and reads two arguments per job where
-- enqueue.lua reads five, in a call that is harmless when re-sent (see remembered in common.lua). No other job holds a
-- generated id, so none is looked up. ARGV: the call's sequence number and re-send window (ms), then per job: id,
-- envelope body (the envelope JSON without its opening brace). Returns 1 (created) per job, as enqueue.lua does for
-- such jobs. The caller sends at most 1,000 jobs, which the variadic calls take (Lua's unpack stops at about 8,000
-- values).
local count = (#ARGV - 2) / 2
local result = {}
for i = 1, count do
	result[i] = 1
end
if remembered() then
	return result
end
local now = now_millis()
local stored, ids = {}, {}
for i = 3, #ARGV, 2 do
	local id = ARGV[i]
	stored[#stored + 1] = id
	stored[#stored + 1] = envelope(now, now, ARGV[i + 1])
	ids[#ids + 1] = id
end
redis.call('HSET', jobs, unpack(stored))
redis.call('RPUSH', ready, unpack(ids))
signal()
-- one digit per job, as enqueue.lua remembers its reply
remember(string.rep('1', count))
return result
