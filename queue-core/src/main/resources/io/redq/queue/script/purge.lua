-- Deletes every job of a queue in one step, so that a job dispatched meanwhile is purged whole or kept whole, in a
-- call that is harmless when re-sent (see remembered in common.lua): a re-sent purge deletes no job dispatched since.
-- KEYS: the queue's keys, then the keys of its gates, then the states of its recurring jobs, then the call's lane key.
-- ARGV: the call's sequence number and re-send window (ms), the number of recurring job states.
-- Deletes the queue's keys and gates with UNLINK, which frees big collections in the background rather than blocking
-- Redis, but keeps the pause switch, the lease token counter (the stale token of a purged running job must never
-- match the lease of a new job with the same id), the data model (a queue kept by newer scripts must not look new to
-- older ones), the lanes of re-sent calls and the holds of the runs still going on (holding, held, which their leaves
-- or the migrator remove as ever): a gate that a run took after the caller's SCAN listed the gates stays, and without
-- its hold a job parked behind it after its worker died would wait for a wake-up nobody sends (a hold whose gate went
-- wakes at most a job that finds its gate taken and takes back its place). A recurring job loses only its latest
-- tick. Returns 1.
-- The batches and chains of the purged jobs must still end: the completions waiting to be handed over stay, and so do
-- the links of the purged members, which the migrator then hands over as purged, a page a pass (see migrate.lua),
-- from the cursor this sets to the start: the score of the handover set's member '' (no id is empty).
local replied = remembered()
if replied then
	return tonumber(replied)
end
local kept = {[paused] = true, [sequence] = true, [model] = true, [handover] = true, [holding] = true,
	[held] = true}
if redis.call('EXISTS', batch_links) == 1 then
	kept[batch_links] = true
	redis.call('ZADD', handover, 0, '')
end
local states = tonumber(ARGV[3])
local purged = {}
for i = 1, #KEYS - 1 - states do
	if not kept[KEYS[i]] then
		purged[#purged + 1] = KEYS[i]
		-- a variadic call takes at most a few thousand values
		if #purged == 1000 then
			redis.call('UNLINK', unpack(purged))
			purged = {}
		end
	end
end
if #purged > 0 then
	redis.call('UNLINK', unpack(purged))
end
for i = #KEYS - states, #KEYS - 1 do
	redis.call('HDEL', KEYS[i], 'last')
end
return tonumber(remember('1'))
