-- Retries dead jobs with fresh attempts and stalls (ARGV[1] = 'retry') or deletes them (ARGV[1] = 'delete'). ARGV[2..]: the
-- ids; none means the oldest 1,000 dead jobs. Returns how many jobs were retried or deleted.
local ids = {}
for i = 2, #ARGV do
	ids[#ids + 1] = ARGV[i]
end
if #ids == 0 then
	ids = redis.call('ZRANGE', dead, 0, 999)
end
local done = 0
for _, id in ipairs(ids) do
	if redis.call('ZREM', dead, id) == 1 then
		if ARGV[1] == 'retry' and redis.call('HEXISTS', jobs, id) == 1 then
			redis.call('HDEL', attempts, id)
			redis.call('HDEL', stalls, id)
			redis.call('HDEL', errors, id)
			redis.call('RPUSH', ready, id)
		else
			forget(id)
		end
		done = done + 1
	end
end
if done > 0 and ARGV[1] == 'retry' then
	signal()
end
return done
