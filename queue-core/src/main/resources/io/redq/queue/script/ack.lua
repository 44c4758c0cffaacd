-- Acknowledges completed jobs. ARGV: how many completed ids to keep (0: none), then pairs of id and lease token. A job whose lease is no longer held by that token
-- (it expired and the job was handed to another worker, or it waits to run again) is refused; a job that is gone
-- already (a client re-sent an acknowledgement that Redis had run) is neither. Returns the refused ids.
-- Variadic commands keep the cost per batch rather than per job; the caller sends at most 1,000 pairs, which they
-- take (Lua's unpack stops at about 8,000 values). With 0 ids to keep, the completed set is left to the migrator,
-- which trims what was kept before.
local keep = tonumber(ARGV[1])
if #ARGV == 1 then
	return {}
end
local ids = {}
for i = 2, #ARGV, 2 do
	ids[#ids + 1] = ARGV[i]
end
local tokens = redis.call('HMGET', leases, unpack(ids))
local done, refused = {}, {}
for i, id in ipairs(ids) do
	if tokens[i] == ARGV[2 * i + 1] then
		done[#done + 1] = id
	elseif redis.call('HEXISTS', jobs, id) == 1 then
		refused[#refused + 1] = id
	end
end
if #done > 0 then
	drop(reserved, unpack(done))
	local now = now_millis()
	count_finished('c', #done, now)
	if keep > 0 then
		local entries = {}
		for _, id in ipairs(done) do
			entries[#entries + 1] = now
			entries[#entries + 1] = id
		end
		redis.call('ZADD', completed, unpack(entries))
		redis.call('ZREMRANGEBYRANK', completed, 0, -keep - 1)
	end
	if redis.call('EXISTS', successors) == 1 then
		for _, id in ipairs(done) do
			promote(id)
		end
	end
end
return refused
