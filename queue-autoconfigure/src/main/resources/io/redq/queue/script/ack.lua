-- Acknowledges completed jobs. ARGV: pairs of id and lease token. A job whose lease is no longer held by that token
-- (it expired and the job was handed to another worker, or it waits to run again) is refused; a job that is gone
-- already (a client re-sent an acknowledgement that Redis had run) is neither. Returns the refused ids.
local refused = {}
for i = 1, #ARGV, 2 do
	local id = ARGV[i]
	if redis.call('HGET', leases, id) == ARGV[i + 1] then
		redis.call('ZREM', reserved, id)
		forget(id)
		promote(id)
	elseif redis.call('HEXISTS', jobs, id) == 1 then
		refused[#refused + 1] = id
	end
end
return refused
