package io.redq.sample.orders;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Orders over HTTP. Writes take JSON, or are {@code PUT}s, neither of which a cross-site
 * form can send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class OrderController {

	private final OrderService orders;

	public OrderController(OrderService orders) {
		this.orders = orders;
	}

	/**
	 * Place an order.
	 * @param request who orders what
	 * @return the order, unpaid
	 */
	@PostMapping(path = "/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.CREATED)
	public Order place(@RequestBody NewOrder request) {
		return this.orders.place(request.email(), request.productId(), request.quantity());
	}

	/**
	 * Return an order.
	 * @param id the order's id
	 * @return the order
	 */
	@GetMapping("/orders/{id}")
	public Order order(@PathVariable long id) {
		return this.orders.find(id);
	}

	/**
	 * Pay an order.
	 * @param id the order's id
	 * @return the order, paid
	 */
	@PutMapping("/orders/{id}/payment")
	public Order pay(@PathVariable long id) {
		return this.orders.pay(id);
	}

	/**
	 * Remind a customer of their unpaid orders: one batch of invoice mails, whose
	 * callback tells the customer how many went out.
	 * @param request whom to remind
	 * @return the batch and how many orders it reminds of
	 */
	@PutMapping(path = "/orders/reminders", consumes = MediaType.APPLICATION_JSON_VALUE)
	public OrderService.Reminders remind(@RequestBody Reminder request) {
		return this.orders.remind(request.email());
	}

	/**
	 * A reminder to send.
	 *
	 * @param email the customer to remind of their unpaid orders
	 */
	public record Reminder(String email) {
	}

	/**
	 * An order to place.
	 *
	 * @param email the customer's email
	 * @param productId what to order
	 * @param quantity how many
	 */
	public record NewOrder(String email, long productId, int quantity) {
	}

}
