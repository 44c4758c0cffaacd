-- Enqueues jobs ready at once under generated ids, at the default level and in no group: what a web request's single
-- dispatch makes, and most batches, and what enqueue.lua would do with them, in a script that defines only the few
-- helpers it calls (Redis makes each helper a script defines on every call) and reads two arguments per job where
-- enqueue.lua reads five, in a call that is harmless when re-sent (see remembered in common.lua). No other job holds a
-- generated id, so none is looked up. ARGV: the call's sequence number and re-send window (ms), then per job: id,
-- envelope body (the envelope JSON without its opening brace). Returns 1 (created) per job, as enqueue.lua does for
-- such jobs. The caller sends at most 1,000 jobs, which the variadic calls take (Lua's unpack stops at about 8,000
-- values).
local count = (#ARGV - 2) / 2
-- 1 (created) per job, remembered as one digit per job as enqueue.lua remembers its reply
local result, reply = {1}, '1'
if count > 1 then
	for i = 2, count do
		result[i] = 1
	end
	reply = string.rep('1', count)
end
if remembered() then
	return result
end
local now = now_millis()
if count == 1 then
	-- the single dispatch a web request makes, without the tables a batch needs: they would cost it more than its
	-- commands' own work does
	redis.call('HSET', jobs, ARGV[3], envelope(now, now, ARGV[4]))
	redis.call('RPUSH', ready, ARGV[3])
else
	local stored, ids = {}, {}
	for i = 1, count do
		local id = ARGV[2 * i + 1]
		stored[2 * i - 1] = id
		stored[2 * i] = envelope(now, now, ARGV[2 * i + 2])
		ids[i] = id
	end
	redis.call('HSET', jobs, unpack(stored))
	redis.call('RPUSH', ready, unpack(ids))
end
signal()
remember(reply)
return result
