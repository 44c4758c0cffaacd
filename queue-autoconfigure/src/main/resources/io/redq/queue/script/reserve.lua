-- Reserves up to ARGV[1] ready jobs (none while the queue is paused) for ARGV[2] ms: each gets a fresh lease token and one more attempt.
-- Returns {now, next due (-1 for none), then per job: id, envelope, attempt, token}.
local now = now_millis()
local result = {now, 0}
-- a paused queue hands out nothing; running jobs finish
local ids = redis.call('EXISTS', paused) == 0 and redis.call('LPOP', ready, tonumber(ARGV[1]))
if ids then
	local expiry = now + tonumber(ARGV[2])
	local token = redis.call('INCRBY', sequence, #ids) - #ids
	for _, id in ipairs(ids) do
		local envelope = redis.call('HGET', jobs, id)
		-- an id without data was removed behind our back: nothing to run
		if envelope then
			token = token + 1
			redis.call('HSET', leases, id, token)
			redis.call('ZADD', reserved, expiry, id)
			result[#result + 1] = id
			result[#result + 1] = envelope
			result[#result + 1] = redis.call('HINCRBY', attempts, id, 1)
			result[#result + 1] = tostring(token)
		end
	end
	-- more work is waiting: pass the wake-up on to another idle listener
	if redis.call('LLEN', ready) > 0 then
		signal()
	end
end
result[2] = next_due()
return result
