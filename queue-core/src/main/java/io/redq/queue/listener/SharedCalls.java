package io.redq.queue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Lets threads that each need one call to Redis, and wait for its answer, share calls:
 * while a call is in flight, the requests that come meanwhile gather, and once it
 * returned the first of them sends them all in the next call. A burst of N requests costs
 * about two calls instead of N, and no request waits for more than the call before its
 * own.
 *
 * @param <T> the type of a request
 * @author Redq team
 * @since 0.1.0
 */
final class SharedCalls<T> {

	private final Function<List<T>, List<Boolean>> call;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition returned = this.lock.newCondition();

	// guarded by lock
	private List<Request<T>> gathered = new ArrayList<>();

	// guarded by lock
	private boolean inFlight;

	/**
	 * Create an instance.
	 * @param call the call, given requests and returning the answer to each, in order
	 */
	SharedCalls(Function<List<T>, List<Boolean>> call) {
		this.call = call;
	}

	/**
	 * Have a request sent with the next call and return its answer.
	 * @param request the request
	 * @return the call's answer to it
	 * @throws RuntimeException what the call threw, to every request it carried
	 */
	boolean send(T request) {
		Request<T> mine = new Request<>(request);
		List<Request<T>> batch;
		this.lock.lock();
		try {
			this.gathered.add(mine);
			while (this.inFlight && !mine.answered) {
				this.returned.awaitUninterruptibly();
			}
			if (mine.answered) {
				return mine.answer();
			}
			this.inFlight = true;
			batch = this.gathered;
			this.gathered = new ArrayList<>();
		}
		finally {
			this.lock.unlock();
		}
		List<Boolean> answers = null;
		Throwable failure = null;
		try {
			answers = this.call.apply(batch.stream().map(Request::request).toList());
		}
		catch (RuntimeException | Error ex) {
			failure = ex;
		}
		this.lock.lock();
		try {
			for (int i = 0; i < batch.size(); i++) {
				batch.get(i).answer((answers != null) ? answers.get(i) : null, failure);
			}
			this.inFlight = false;
			this.returned.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		return mine.answer();
	}

	private static final class Request<T> {

		private final T request;

		private boolean answered;

		private @Nullable Boolean answer;

		private @Nullable Throwable failure;

		Request(T request) {
			this.request = request;
		}

		T request() {
			return this.request;
		}

		void answer(@Nullable Boolean answer, @Nullable Throwable failure) {
			this.answer = answer;
			this.failure = failure;
			this.answered = true;
		}

		boolean answer() {
			if (this.failure instanceof RuntimeException ex) {
				throw ex;
			}
			if (this.failure instanceof Error error) {
				throw error;
			}
			return Boolean.TRUE.equals(this.answer);
		}

	}

}
