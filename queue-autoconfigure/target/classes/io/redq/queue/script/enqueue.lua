-- Enqueues a batch of jobs. ARGV: count, then per job: id, due mode ('d' delay in ms or 'a' epoch ms), due value,
-- duplicate policy ('k' keep the existing pending job, 'r' replace its payload and due time), envelope body
-- (the envelope JSON without its opening brace: the script prepends the Redis-clock times).
-- Returns per job: 1 created, 0 kept the existing job, 2 replaced the existing job.
local now = now_millis()
local count = tonumber(ARGV[1])
local result = {}
local woke = false
for i = 0, count - 1 do
	local base = 2 + i * 5
	local id, mode, value, policy, body = ARGV[base], ARGV[base + 1], tonumber(ARGV[base + 2]), ARGV[base + 3], ARGV[base + 4]
	local due = now + value
	if mode == 'a' then
		due = value
	end
	local status = 1
	if redis.call('HEXISTS', jobs, id) == 1 then
		if redis.call('ZSCORE', dead, id) then
			-- a dead job does not block its id: the new dispatch starts afresh
			redis.call('ZREM', dead, id)
			forget(id)
		elseif policy == 'r' and not redis.call('ZSCORE', reserved, id) then
			if redis.call('ZREM', delayed, id) == 0 then
				redis.call('LREM', ready, 1, id)
			end
			status = 2
		else
			status = 0
		end
	end
	if status ~= 0 then
		redis.call('HSET', jobs, id, '{"createdAt":' .. now .. ',"availableAt":' .. math.max(due, now) .. ',' .. body)
		if due > now then
			schedule(id, due)
		else
			redis.call('RPUSH', ready, id)
			woke = true
		end
	end
	result[i + 1] = status
end
if woke then
	signal()
end
return result
