-- Pages through dead jobs, newest first. ARGV: offset, count.
-- Returns per job: id, time of death (epoch ms), envelope, last error, attempts.
local result = {}
local ids = redis.call('ZREVRANGE', dead, tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 1, #ids, 2 do
	local id = ids[i]
	result[#result + 1] = id
	result[#result + 1] = ids[i + 1]
	result[#result + 1] = redis.call('HGET', jobs, id) or ''
	result[#result + 1] = redis.call('HGET', errors, id) or ''
	result[#result + 1] = redis.call('HGET', attempts, id) or '0'
end
return result
