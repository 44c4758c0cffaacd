package io.redq.sample;

import java.util.NoSuchElementException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the shop's errors into problem details ({@code application/problem+json}) that
 * say what was wrong: bad input is a {@code 400}, an unknown order or auction a
 * {@code 404}, a request the current state refuses a {@code 409}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestControllerAdvice
class ShopErrors {

	@ExceptionHandler
	ProblemDetail badInput(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail notFound(NoSuchElementException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail conflict(ConflictException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

}
