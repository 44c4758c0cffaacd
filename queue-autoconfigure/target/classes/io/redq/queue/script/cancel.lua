-- Cancels a pending (ready or delayed) job. ARGV: id. Returns 1 when it was removed, 0 when it was not pending.
local id = ARGV[1]
if redis.call('ZREM', delayed, id) == 1 or redis.call('LREM', ready, 1, id) == 1 then
	forget(id)
	return 1
end
return 0
